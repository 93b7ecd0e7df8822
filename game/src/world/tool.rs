//! The two tools (docs/player.md, docs/terrain.md): the **block tool** (the default) breaks the
//! aimed block with the primary button and places one with the secondary, its material picked
//! with the wheel or 1–6 and its size with comma and period; the **terrain tool** digs and builds
//! spheres where the view meets the ground, the wheel sizing them. T switches between them; the
//! middle button picks the aimed block's material and size ([`World::pick_block`]).
//! While a button is held the tool acts again every [`TOOL_REPEAT`] seconds.

use ultraviolet::Vec3;

use crate::blocks::materials::MATERIALS;
use crate::input::ToolButton;
use crate::player::Mode;
use crate::terrain::SampleBox;

use super::aim::AimTarget;
use super::rules::PlaceRefusal;
use super::World;

/// The terrain tool's radius at the start, and its limits, in meters.
pub const TOOL_RADIUS: f32 = 2.0;
pub const TOOL_RADIUS_MIN: f32 = 0.5;
pub const TOOL_RADIUS_MAX: f32 = 8.0;
/// How much one notch of the wheel changes the terrain tool's radius.
pub const TOOL_RADIUS_STEP: f32 = 0.5;
/// How far the terrain tool reaches along the view, in meters.
pub const TOOL_REACH: f32 = 40.0;
/// While a button is held, the tool acts again this often, in seconds.
pub const TOOL_REPEAT: f32 = 0.12;
/// The block sizes the tool offers, in cells (0.5, 1 and 2 m).
pub const BLOCK_SIZES: [u8; 3] = crate::blocks::store::SIZES;

/// Which tool is in hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    Blocks,
    Terrain,
}

impl ToolKind {
    /// As the HUD and a scripted run's state line name it.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Blocks => "blocks",
            ToolKind::Terrain => "terrain",
        }
    }
}

/// The tools' settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tool {
    pub kind: ToolKind,
    /// The block tool's material (an index into `MATERIALS`).
    pub material: usize,
    /// The block tool's size, in cells (one of [`BLOCK_SIZES`]).
    pub size: u8,
    /// The terrain tool's radius, in meters.
    pub radius: f32,
    /// Seconds until a held button acts again.
    pub(super) wait: f32,
}

impl Default for Tool {
    /// The block tool, stone, 1 m blocks; a 2 m sphere for the terrain tool.
    fn default() -> Self {
        Self {
            kind: ToolKind::Blocks,
            material: 0,
            size: 2,
            radius: TOOL_RADIUS,
            wait: 0.0,
        }
    }
}

impl Tool {
    /// T: the other tool.
    pub fn switch(&mut self) {
        self.kind = match self.kind {
            ToolKind::Blocks => ToolKind::Terrain,
            ToolKind::Terrain => ToolKind::Blocks,
        };
    }

    /// 1–6: a material by number; numbers beyond the table change nothing.
    pub fn pick_material(&mut self, material: usize) {
        if material < MATERIALS.len() {
            self.material = material;
        }
    }

    /// Comma and period: the next size down (`step` < 0) or up, within [`BLOCK_SIZES`].
    pub fn step_size(&mut self, step: i8) {
        let index = BLOCK_SIZES
            .iter()
            .position(|&size| size == self.size)
            .unwrap_or(1) as i32;
        let next = (index + i32::from(step.signum())).clamp(0, BLOCK_SIZES.len() as i32 - 1);
        self.size = BLOCK_SIZES[next as usize];
    }

    /// The block size in meters.
    pub fn size_meters(&self) -> f32 {
        f32::from(self.size) * crate::blocks::store::CELL
    }

    /// The material's name.
    pub fn material_name(&self) -> &'static str {
        MATERIALS[self.material].name
    }

    /// Whether its material, block size and radius are ones the tools offer: a material of
    /// the table, one of [`BLOCK_SIZES`], a radius from [`TOOL_RADIUS_MIN`] to
    /// [`TOOL_RADIUS_MAX`].
    pub fn in_range(&self) -> bool {
        self.material < MATERIALS.len()
            && BLOCK_SIZES.contains(&self.size)
            && (TOOL_RADIUS_MIN..=TOOL_RADIUS_MAX).contains(&self.radius)
    }
}

impl World {
    /// Takes `tool` in hand, as T, the digits, comma, period and the wheel would choose it:
    /// its kind, material, block size and radius (a held button repeats on its own clock, as
    /// it did). What the view aims at is worked out again. A tool out of range
    /// ([`Tool::in_range`]) changes nothing and gives false.
    pub fn choose_tool(&mut self, tool: Tool) -> bool {
        if !tool.in_range() {
            return false;
        }
        self.tool = Tool {
            wait: self.tool.wait,
            ..tool
        };
        self.update_aim();
        true
    }

    /// The wheel: with the block tool it picks the material (a notch down the next one, up the
    /// one before, wrapping around), with the terrain tool it sizes the sphere (up grows it).
    pub fn tool_wheel(&mut self, notches: f32) {
        if !notches.is_finite() || notches == 0.0 {
            return;
        }
        match self.tool.kind {
            ToolKind::Blocks => {
                let count = MATERIALS.len() as i64;
                let steps = -(notches.round() as i64).clamp(-count, count);
                self.tool.material = (self.tool.material as i64 + steps).rem_euclid(count) as usize;
            }
            ToolKind::Terrain => {
                self.tool.radius = (self.tool.radius + notches * TOOL_RADIUS_STEP)
                    .clamp(TOOL_RADIUS_MIN, TOOL_RADIUS_MAX);
            }
        }
    }

    /// The middle button: the block the view aims at (standing on the grid, or a block of
    /// rubble) gives the block tool its material and size, and the block tool is taken in hand
    /// if the terrain tool was. Aiming at the ground or at nothing changes nothing. Returns
    /// whether a block was picked.
    pub fn pick_block(&mut self) -> bool {
        let aim = match self.tool.kind {
            ToolKind::Blocks => self.aim.clone(),
            // The terrain tool aims at no block: where the block tool would aim, then.
            ToolKind::Terrain if self.embodied => self.trace_aim(),
            ToolKind::Terrain => None,
        };
        let block = match aim.map(|aim| aim.target) {
            Some(AimTarget::Block { block, .. }) => block,
            Some(AimTarget::Piece { handle, cell }) => match self.pieces.block_at(handle, cell) {
                Some(block) => block,
                None => return false,
            },
            Some(AimTarget::Ground) | None => return false,
        };
        self.tool.kind = ToolKind::Blocks;
        self.tool.material = usize::from(block.material);
        self.tool.size = block.size;
        self.update_aim();
        true
    }

    /// Where the terrain tool's sphere goes: where the view meets the ground within
    /// [`TOOL_REACH`] (`None` with the block tool or nothing in reach).
    pub fn ground_aim(&self) -> Option<[f32; 3]> {
        if self.tool.kind != ToolKind::Terrain {
            return None;
        }
        super::ground_along(&self.field, self.eye(), self.look_direction(), TOOL_REACH)
    }

    /// The tool while `button` is held: acts at once when first pressed (`pressed`), then every
    /// [`TOOL_REPEAT`] seconds. Returns the ground's changed samples (terrain tool) and how many
    /// blocks fell.
    pub fn hold_tool(
        &mut self,
        button: ToolButton,
        dt: f32,
        pressed: bool,
    ) -> (Option<SampleBox>, usize) {
        if pressed {
            self.tool.wait = 0.0;
        }
        self.tool.wait -= if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        if self.tool.wait > 0.0 {
            return (None, 0);
        }
        self.tool.wait = TOOL_REPEAT;
        self.use_tool(button)
    }

    /// The tool acts once with `button`.
    pub fn use_tool(&mut self, button: ToolButton) -> (Option<SampleBox>, usize) {
        match self.tool.kind {
            ToolKind::Blocks => {
                let fell = self.use_block_tool(button);
                self.update_aim();
                (None, fell)
            }
            ToolKind::Terrain => {
                let Some(at) = self.ground_aim() else {
                    return (None, 0);
                };
                let dig = button == ToolButton::Primary;
                match self.edit_at(dig, at, self.tool.radius) {
                    Ok(result) => result,
                    Err(error) => {
                        self.tool_refusal = Some(format!("Not dug or built: {error}"));
                        (None, 0)
                    }
                }
            }
        }
    }

    /// Breaks (primary) or places (secondary) with the block tool; returns how many fell.
    fn use_block_tool(&mut self, button: ToolButton) -> usize {
        let Some(aim) = self.aim.clone() else {
            return 0;
        };
        match button {
            ToolButton::Primary => match aim.target {
                AimTarget::Block { id, .. } => self.break_block(id).1,
                AimTarget::Piece { handle, cell } => {
                    match self.break_piece_block(handle.index(), cell) {
                        Ok((_, fell)) => fell,
                        Err(error) => {
                            log::warn!("breaking rubble: {error}");
                            0
                        }
                    }
                }
                AimTarget::Ground => 0,
            },
            ToolButton::Secondary => {
                if let Some(placement) = aim.placement.filter(|p| p.fits()) {
                    // Checked again: the world may have moved since the aim was taken.
                    if let Err(PlaceRefusal::Full(error)) = self.place(placement.block) {
                        self.tool_refusal = Some(format!("Not placed: {error}"));
                    }
                }
                0
            }
        }
    }

    /// Digs (`dig`) or builds a sphere of `radius` meters around `centre`; building is refused
    /// where the mound would bury the walking player.
    pub fn edit_at(
        &mut self,
        dig: bool,
        centre: [f32; 3],
        radius: f32,
    ) -> Result<(Option<SampleBox>, usize), crate::terrain::EditError> {
        if !dig && self.buries_player(centre, radius) {
            return Ok((None, 0));
        }
        self.edit_sphere(dig, centre, radius)
    }

    /// Whether a mound around `centre` would reach the walking player's body.
    fn buries_player(&self, centre: [f32; 3], radius: f32) -> bool {
        if !self.embodied || self.player.mode == Mode::Fly {
            return false;
        }
        let centre = Vec3::from(centre);
        let feet = self.player.position + Vec3::new(0.0, crate::player::RADIUS, 0.0);
        let head = self.player.position
            + Vec3::new(0.0, crate::player::HEIGHT - crate::player::RADIUS, 0.0);
        let nearest = closest_on_segment(centre, feet, head);
        (nearest - centre).mag() < radius + crate::player::RADIUS
    }
}

/// The point of the segment `a`–`b` nearest `point`.
fn closest_on_segment(point: Vec3, a: Vec3, b: Vec3) -> Vec3 {
    let along = b - a;
    let t = ((point - a).dot(along) / along.mag_sq().max(1e-12)).clamp(0.0, 1.0);
    a + along * t
}
