//! How the sun's shadows are drawn: the player's `shadows` setting (the passes that draw them
//! are the renderer's).

/// The sun's shadows and the blocks' ambient occlusion, as `settings.ron` spells them (`Off`,
/// `Low`, `High`). `Off` draws the picture without either, exactly as before they existed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Shadows {
    /// No shadow passes, no occlusion.
    Off,
    /// Three cascades of 1024² texels, one filtered lookup per pixel.
    Low,
    /// Four cascades of 1536² texels, a 3×3 filtered lookup per pixel.
    #[default]
    High,
}

impl Shadows {
    /// Every quality, lowest first.
    pub const ALL: [Shadows; 3] = [Shadows::Off, Shadows::Low, Shadows::High];

    /// The name `settings.ron` and the HUD use.
    pub fn name(self) -> &'static str {
        match self {
            Shadows::Off => "Off",
            Shadows::Low => "Low",
            Shadows::High => "High",
        }
    }
}
