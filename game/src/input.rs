//! The game's controls, the same for the window, scripted runs and `sim` scenes (docs/player.md):
//! keys and buttons by their names ([`Button`], winit's `KeyCode` names and `MouseLeft`,
//! `MouseRight`, `MouseMiddle`), what each one does ([`Action`], through the [`Bindings`]), what
//! is held now and what was asked for since the last frame ([`Input`]), and what a press asks
//! for ([`Command`]).
//!
//! The default bindings (the player may change them in `settings.ron`, see
//! [`crate::settings`]; scenes and scripts always use these):
//!
//! | control | block tool (default) | terrain tool |
//! |---|---|---|
//! | W A S D (or arrows), Shift, Space | walk, run, jump | same |
//! | F; Q / E | fly on and off; down / up while flying | same |
//! | left button | break the aimed block (what it held falls) | dig a sphere |
//! | right button | place a block (the ghost shows where) | build a sphere |
//! | wheel | pick the material | size the sphere |
//! | 1–6 | pick the material | — |
//! | comma / period | block size down / up (0.5, 1, 2 m) | — |
//! | C / Shift+C | chisel the aimed edge / toggle the aimed block's slope | — |
//! | T | switch to the terrain tool | back to the block tool |
//! | middle button | pick the aimed block's material and size | same, and back to the block tool |
//! | Ctrl+Z; Ctrl+Y or Ctrl+Shift+Z | undo the last edit; redo it | same |
//! | L, F1, F2, F3, F11, Esc | wireframe, hide the HUD, screenshot, HUD detail, fullscreen, free the mouse (twice: quit) | same |
//! | F5, F9 | save, load (the run's business, window or headless) | same |
//!
//! Keys are named by their place on the keyboard, so WASD sit under the same fingers on any
//! layout. `undo` and `redo` act only while a Control key is held, whatever it is bound to
//! ([`Modifiers`]); Shift with `undo` redoes.

use std::fmt;

use serde::de::{Error as _, MapAccess, Visitor};
use serde::ser::SerializeMap as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::player::Controls;

/// Radians the view turns per pixel the mouse moves (at a sensitivity of 1).
pub const MOUSE_RADIANS_PER_PIXEL: f32 = 0.0025;

macro_rules! buttons {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// A key or mouse button the game knows, by winit's `KeyCode` name (and `Mouse…`): the
        /// names scenes press and `settings.ron` binds.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Button {
            $($(#[$doc])* $name,)*
        }

        impl Button {
            /// Every button, in the order of the enum (`button as usize` is its index here).
            pub const ALL: &'static [Button] = &[$(Button::$name,)*];
        }
    };
}

buttons! {
    KeyA, KeyB, KeyC, KeyD, KeyE, KeyF, KeyG, KeyH, KeyI, KeyJ, KeyK, KeyL, KeyM,
    KeyN, KeyO, KeyP, KeyQ, KeyR, KeyS, KeyT, KeyU, KeyV, KeyW, KeyX, KeyY, KeyZ,
    Digit0, Digit1, Digit2, Digit3, Digit4, Digit5, Digit6, Digit7, Digit8, Digit9,
    F1, F2, F3, F4, F5, F6, F7, F8, F9, F10, F11, F12,
    ArrowUp, ArrowDown, ArrowLeft, ArrowRight,
    Space, Enter, Tab, Backspace, Escape,
    ShiftLeft, ShiftRight, ControlLeft, ControlRight, AltLeft, AltRight,
    Comma, Period, Slash, Semicolon, Quote, BracketLeft, BracketRight, Minus, Equal,
    Backquote, Backslash,
    Numpad0, Numpad1, Numpad2, Numpad3, Numpad4, Numpad5, Numpad6, Numpad7, Numpad8, Numpad9,
    MouseLeft, MouseRight, MouseMiddle,
}

impl Button {
    /// How many buttons there are.
    pub const COUNT: usize = Self::ALL.len();

    /// The button's name, as scenes and `settings.ron` write it (`KeyW`, `MouseLeft`).
    pub fn name(self) -> String {
        format!("{self:?}")
    }

    /// A short name for the HUD's help: `W`, `1`, `F5`, `Shift`, `,`, `Num4`, `left` (the
    /// mouse's left button).
    pub fn label(self) -> String {
        let name = self.name();
        if let Some(rest) = name.strip_prefix("Key").or(name.strip_prefix("Digit")) {
            return rest.into();
        }
        if let Some(rest) = name.strip_prefix("Numpad") {
            return format!("Num{rest}");
        }
        let short = match self {
            Button::ArrowUp => "Up",
            Button::ArrowDown => "Down",
            Button::ArrowLeft => "Left",
            Button::ArrowRight => "Right",
            Button::Escape => "Esc",
            Button::ShiftLeft | Button::ShiftRight => "Shift",
            Button::ControlLeft | Button::ControlRight => "Ctrl",
            Button::AltLeft | Button::AltRight => "Alt",
            Button::Comma => ",",
            Button::Period => ".",
            Button::Slash => "/",
            Button::Semicolon => ";",
            Button::Quote => "'",
            Button::BracketLeft => "[",
            Button::BracketRight => "]",
            Button::Minus => "-",
            Button::Equal => "=",
            Button::Backquote => "`",
            Button::Backslash => "\\",
            Button::MouseLeft => "left",
            Button::MouseRight => "right",
            Button::MouseMiddle => "middle",
            _ => return name,
        };
        short.into()
    }
}

macro_rules! actions {
    ($($(#[$doc:meta])* $variant:ident = $name:literal [$($button:ident),*],)*) => {
        /// What a button does: the names `settings.ron` binds buttons to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Action {
            $($(#[$doc])* #[serde(rename = $name)] $variant,)*
        }

        impl Action {
            /// Every action, in the order of the enum (and of `settings.ron`).
            pub const ALL: &'static [Action] = &[$(Action::$variant,)*];

            /// The action's name in `settings.ron` (`forward`, `switch_tool`, `material_1`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Action::$variant => $name,)*
                }
            }

            /// The buttons bound to it by default.
            pub fn default_buttons(self) -> &'static [Button] {
                match self {
                    $(Action::$variant => &[$(Button::$button),*],)*
                }
            }
        }
    };
}

actions! {
    /// Held: walk forward.
    Forward = "forward" [KeyW, ArrowUp],
    /// Held: walk back.
    Back = "back" [KeyS, ArrowDown],
    /// Held: step left.
    Left = "left" [KeyA, ArrowLeft],
    /// Held: step right.
    Right = "right" [KeyD, ArrowRight],
    /// Held: jump.
    Jump = "jump" [Space],
    /// Held: run (and with `chisel`: toggle the slope).
    Run = "run" [ShiftLeft, ShiftRight],
    /// Held: up while flying.
    Up = "up" [KeyE],
    /// Held: down while flying.
    Down = "down" [KeyQ],
    /// Fly on and off.
    Fly = "fly" [KeyF],
    /// The block tool and the terrain tool.
    SwitchTool = "switch_tool" [KeyT],
    /// Material 1 (stone).
    Material1 = "material_1" [Digit1],
    /// Material 2 (bricks).
    Material2 = "material_2" [Digit2],
    /// Material 3 (planks).
    Material3 = "material_3" [Digit3],
    /// Material 4 (plaster).
    Material4 = "material_4" [Digit4],
    /// Material 5 (slate).
    Material5 = "material_5" [Digit5],
    /// Material 6 (copper).
    Material6 = "material_6" [Digit6],
    /// The block size one step down.
    Smaller = "smaller" [Comma],
    /// The block size one step up.
    Larger = "larger" [Period],
    /// Cut or restore the aimed edge; with `run` held, toggle the aimed block's slope.
    Chisel = "chisel" [KeyC],
    /// The terrain's wireframe.
    Wireframe = "wireframe" [KeyL],
    /// The terrain's mesher: surface nets or marching cubes.
    Mesher = "mesher" [KeyM],
    /// A PNG of what is on screen.
    Screenshot = "screenshot" [F2],
    /// The HUD's detail.
    Detail = "detail" [F3],
    /// Fullscreen on and off.
    Fullscreen = "fullscreen" [F11],
    /// The pause menu: opens it (and closes it again).
    Escape = "escape" [Escape],
    /// Save the world.
    Save = "save" [F5],
    /// Load the saved world.
    Load = "load" [F9],
    /// Held: the tool's first use (break a block, dig).
    BreakOrDig = "break_or_dig" [MouseLeft],
    /// Held: the tool's second use (place a block, build).
    PlaceOrBuild = "place_or_build" [MouseRight],
    /// With Control held: undo the last edit (with Shift too: redo it).
    Undo = "undo" [KeyZ],
    /// With Control held: redo the edit undone last.
    Redo = "redo" [KeyY],
    /// The aimed block's material and size for the block tool.
    PickBlock = "pick_block" [MouseMiddle],
    /// The HUD hidden and shown again.
    HideHud = "hide_hud" [F1],
}

impl Action {
    /// What a press of this action asks for (`shifted`: the `run` action is held; for `undo`,
    /// a Shift key, which makes it a redo), for the actions that are not held (movement, the
    /// tool's buttons). [`Input::button`] asks for `undo` and `redo` only while a Control key
    /// is held.
    pub fn command(self, shifted: bool) -> Option<Command> {
        Some(match self {
            Action::Fly => Command::ToggleFly,
            Action::SwitchTool => Command::SwitchTool,
            Action::Material1 => Command::Material(0),
            Action::Material2 => Command::Material(1),
            Action::Material3 => Command::Material(2),
            Action::Material4 => Command::Material(3),
            Action::Material5 => Command::Material(4),
            Action::Material6 => Command::Material(5),
            Action::Smaller => Command::BlockSize(-1),
            Action::Larger => Command::BlockSize(1),
            Action::Chisel if shifted => Command::ToggleSlope,
            Action::Chisel => Command::Chisel,
            Action::Wireframe => Command::ToggleWireframe,
            Action::Mesher => Command::SwitchMesher,
            Action::Screenshot => Command::Screenshot,
            Action::Detail => Command::ToggleDetail,
            Action::Fullscreen => Command::ToggleFullscreen,
            Action::Escape => Command::Escape,
            Action::Save => Command::Save,
            Action::Load => Command::Load,
            Action::Undo if shifted => Command::Redo,
            Action::Undo => Command::Undo,
            Action::Redo => Command::Redo,
            Action::PickBlock => Command::PickBlock,
            Action::HideHud => Command::ToggleHud,
            Action::Forward
            | Action::Back
            | Action::Left
            | Action::Right
            | Action::Jump
            | Action::Run
            | Action::Up
            | Action::Down
            | Action::BreakOrDig
            | Action::PlaceOrBuild => return None,
        })
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which button goes with which action: each button does at most one thing; an action may have
/// any number of buttons (none: unbound). The default is the table above.
///
/// In `settings.ron` it is a map from each action to its list of buttons,
/// `{forward: [KeyW, ArrowUp], …}`: a button listed under two actions is an error; an action
/// left out keeps those of its default buttons no other action took.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Bindings {
    by_button: [Option<Action>; Button::COUNT],
}

/// A button that two actions want.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{} is bound to both {first} and {second}", button.name())]
pub struct BindingConflict {
    pub button: Button,
    pub first: Action,
    pub second: Action,
}

impl Bindings {
    /// No button bound to anything.
    pub fn none() -> Self {
        Self {
            by_button: [None; Button::COUNT],
        }
    }

    /// What `button` does, if anything.
    pub fn action(&self, button: Button) -> Option<Action> {
        self.by_button[button as usize]
    }

    /// The buttons bound to `action`, in the order of [`Button::ALL`].
    pub fn buttons(&self, action: Action) -> Vec<Button> {
        Button::ALL
            .iter()
            .copied()
            .filter(|&button| self.action(button) == Some(action))
            .collect()
    }

    /// The first button bound to `action` as the HUD names it ([`Button::label`]), or
    /// `unbound`.
    pub fn label(&self, action: Action) -> String {
        self.buttons(action)
            .first()
            .map_or_else(|| "unbound".into(), |button| button.label())
    }

    /// Binds `button` to `action` (again: nothing changes); refused when another action has it.
    pub fn bind(&mut self, button: Button, action: Action) -> Result<(), BindingConflict> {
        match self.action(button) {
            Some(first) if first != action => Err(BindingConflict {
                button,
                first,
                second: action,
            }),
            _ => {
                self.by_button[button as usize] = Some(action);
                Ok(())
            }
        }
    }

    /// `button` does nothing any more.
    pub fn unbind(&mut self, button: Button) {
        self.by_button[button as usize] = None;
    }

    /// Bindings from each action's list of buttons; the actions not listed keep those of their
    /// default buttons that no listed action took. A button in two lists is refused.
    pub fn from_lists<I>(lists: I) -> Result<Self, BindingConflict>
    where
        I: IntoIterator<Item = (Action, Vec<Button>)>,
    {
        let mut bindings = Self::none();
        let mut listed = [false; Action::ALL.len()];
        for (action, buttons) in lists {
            listed[action as usize] = true;
            for button in buttons {
                bindings.bind(button, action)?;
            }
        }
        bindings.fill_defaults(&listed);
        Ok(bindings)
    }

    /// The actions not `listed` get those of their default buttons that are free.
    fn fill_defaults(&mut self, listed: &[bool]) {
        for &action in Action::ALL {
            if !listed[action as usize] {
                for &button in action.default_buttons() {
                    if self.action(button).is_none() {
                        self.by_button[button as usize] = Some(action);
                    }
                }
            }
        }
    }
}

impl Default for Bindings {
    /// The table of the module's documentation.
    fn default() -> Self {
        let mut bindings = Self::none();
        bindings.fill_defaults(&[false; Action::ALL.len()]);
        bindings
    }
}

impl fmt::Debug for Bindings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                Action::ALL
                    .iter()
                    .map(|&action| (action, self.buttons(action))),
            )
            .finish()
    }
}

impl Serialize for Bindings {
    /// Every action, in order, with its list of buttons (empty when unbound).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(Action::ALL.len()))?;
        for &action in Action::ALL {
            map.serialize_entry(&action, &self.buttons(action))?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Bindings {
    /// A map of actions to lists of buttons; the error of an action listed twice, or of a
    /// button already bound to another action, is raised as that entry is read (so a parser
    /// that knows positions names its line).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Lists;
        impl<'de> Visitor<'de> for Lists {
            type Value = Bindings;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from actions to lists of buttons")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Bindings, A::Error> {
                let mut bindings = Bindings::none();
                let mut listed = [false; Action::ALL.len()];
                while let Some(action) = map.next_key::<Action>()? {
                    let buttons: Vec<Button> = map.next_value()?;
                    if std::mem::replace(&mut listed[action as usize], true) {
                        return Err(A::Error::custom(format!("{action} is listed twice")));
                    }
                    for button in buttons {
                        bindings.bind(button, action).map_err(A::Error::custom)?;
                    }
                }
                bindings.fill_defaults(&listed);
                Ok(bindings)
            }
        }
        deserializer.deserialize_map(Lists)
    }
}

/// How the mouse turns the view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    /// A multiple of [`MOUSE_RADIANS_PER_PIXEL`].
    pub sensitivity: f32,
    /// Moving the mouse up looks down.
    pub invert_y: bool,
}

impl Default for Look {
    fn default() -> Self {
        Self {
            sensitivity: 1.0,
            invert_y: false,
        }
    }
}

/// Which button of the mouse, for the tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolButton {
    /// Breaks a block, digs.
    Primary,
    /// Places a block, builds.
    Secondary,
}

/// What a press asks for, besides the held movement keys and the tool's buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    ToggleFly,
    /// T: the block tool and the terrain tool.
    SwitchTool,
    /// 1–6: a material by its number (0–5).
    Material(usize),
    /// Comma, period: the block size one step down or up.
    BlockSize(i8),
    /// C: cut or restore the aimed block's edge nearest the aim.
    Chisel,
    /// Shift+C: the aimed block between rounded and sloped cuts.
    ToggleSlope,
    ToggleWireframe,
    /// M: the terrain meshed again with the other mesher.
    SwitchMesher,
    /// F2: a PNG of what is on screen.
    Screenshot,
    /// F3: the HUD's detail (passes, timings).
    ToggleDetail,
    /// F11.
    ToggleFullscreen,
    /// Escape: the pause menu (the run opens it; quitting is its Quit).
    Escape,
    /// F5: save the world (the run's business, window or headless: the world passes it on).
    Save,
    /// F9: load the saved world (the run's business, window or headless: the world passes it on).
    Load,
    /// Ctrl+Z: undo the last edit ([`crate::world::World::undo`]).
    Undo,
    /// Ctrl+Y or Ctrl+Shift+Z: redo the edit undone last ([`crate::world::World::redo`]).
    Redo,
    /// The middle button: the aimed block's material and size for the block tool
    /// ([`crate::world::World::pick_block`]).
    PickBlock,
    /// F1: the HUD hidden or shown (the window's business: the world passes it on).
    ToggleHud,
}

/// The modifier keys held, by the keys themselves whatever actions they are bound to: Control
/// makes Z and Y undo and redo, Shift makes Ctrl+Z redo.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Modifiers {
    pub control_left: bool,
    pub control_right: bool,
    pub shift_left: bool,
    pub shift_right: bool,
}

impl Modifiers {
    /// Whether a Control key is held.
    pub fn control(&self) -> bool {
        self.control_left || self.control_right
    }

    /// Whether a Shift key is held.
    pub fn shift(&self) -> bool {
        self.shift_left || self.shift_right
    }

    /// Notes `button` going down (`down`) or up, if it is a modifier key.
    fn button(&mut self, button: Button, down: bool) {
        let held = match button {
            Button::ControlLeft => &mut self.control_left,
            Button::ControlRight => &mut self.control_right,
            Button::ShiftLeft => &mut self.shift_left,
            Button::ShiftRight => &mut self.shift_right,
            _ => return,
        };
        *held = down;
    }
}

/// What is held down now, and what was asked for since the last frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    pub controls: Controls,
    /// The tool's button held, and whether it went down since the last frame.
    pub tool: Option<(ToolButton, bool)>,
    /// The tool's button went up again before a frame saw it go down: that frame still acts
    /// once (a click shorter than a frame is not lost), then it is let go.
    pub tool_released: bool,
    /// Wheel notches since the last frame (up is positive).
    pub wheel: f32,
    /// Mouse movement since the last frame, in pixels.
    pub turn: (f32, f32),
    /// Whether the mouse turns the view and clicks act (a scripted run starts captured).
    pub captured: bool,
    /// What each button does (scenes and scripts: always the default).
    pub bindings: Bindings,
    /// How the mouse turns the view (scenes and scripts: always the default).
    pub look: Look,
    /// The modifier keys held.
    pub modifiers: Modifiers,
}

impl Input {
    /// Nothing held, with these bindings and this way of looking (the player's settings).
    pub fn new(bindings: Bindings, look: Look) -> Self {
        Self {
            bindings,
            look,
            ..Self::default()
        }
    }

    /// A button went down (`down`) or up; `repeat` for a key's auto-repeat. Returns the command
    /// it asks for, if any, by the button's [`Action`] in [`Input::bindings`]. The tool's
    /// buttons act only while captured; a click while free captures
    /// ([`Input::wants_capture`] tells the window), and so does `pick_block`. `undo` and
    /// `redo` ask for nothing unless a Control key is held ([`Input::modifiers`], kept here
    /// whatever the keys are bound to).
    pub fn button(&mut self, button: Button, down: bool, repeat: bool) -> Option<Command> {
        self.modifiers.button(button, down);
        let action = self.bindings.action(button)?;
        let held = match action {
            Action::Forward => Some(&mut self.controls.forward),
            Action::Back => Some(&mut self.controls.back),
            Action::Left => Some(&mut self.controls.left),
            Action::Right => Some(&mut self.controls.right),
            Action::Jump => Some(&mut self.controls.jump),
            Action::Run => Some(&mut self.controls.run),
            Action::Up => Some(&mut self.controls.up),
            Action::Down => Some(&mut self.controls.down),
            _ => None,
        };
        if let Some(held) = held {
            *held = down;
            return None;
        }
        let tool = match action {
            Action::BreakOrDig => Some(ToolButton::Primary),
            Action::PlaceOrBuild => Some(ToolButton::Secondary),
            _ => None,
        };
        if let Some(tool) = tool {
            if down && self.captured {
                self.tool = Some((tool, true));
                self.tool_released = false;
            } else if !down && self.tool.is_some_and(|(held, _)| held == tool) {
                if self.tool.is_some_and(|(_, pressed)| pressed) {
                    self.tool_released = true;
                } else {
                    self.tool = None;
                }
            }
            return None;
        }
        if !down || repeat {
            return None;
        }
        match action {
            Action::Undo | Action::Redo if !self.modifiers.control() => None,
            // A click while the mouse is free acts no more than the tool's buttons do.
            Action::PickBlock if !self.captured => None,
            Action::Undo => action.command(self.modifiers.shift()),
            _ => action.command(self.controls.run),
        }
    }

    /// Whether pressing `button` now should capture the mouse (a click while it is free: the
    /// click captures and does not act).
    pub fn wants_capture(&self, button: Button, down: bool) -> bool {
        down && !self.captured && matches!(button, Button::MouseLeft | Button::MouseRight)
    }

    /// The mouse moved by `(dx, dy)` pixels; it turns the view only while captured.
    pub fn mouse_moved(&mut self, dx: f64, dy: f64) {
        if self.captured && dx.is_finite() && dy.is_finite() {
            self.turn.0 += dx as f32;
            self.turn.1 += dy as f32;
        }
    }

    /// The wheel turned by `notches` (up is positive); ignored when not finite.
    pub fn wheel_turned(&mut self, notches: f32) {
        if notches.is_finite() {
            self.wheel += notches;
        }
    }

    /// The view's turn since the last frame, in radians (yaw, pitch), and forgets it. Moving
    /// the mouse right turns right, up looks up (down with [`Look::invert_y`]), each pixel
    /// [`MOUSE_RADIANS_PER_PIXEL`] times [`Look::sensitivity`].
    pub fn take_turn(&mut self) -> (f32, f32) {
        let (dx, dy) = std::mem::take(&mut self.turn);
        let scale = MOUSE_RADIANS_PER_PIXEL * self.look.sensitivity;
        let dy = if self.look.invert_y { -dy } else { dy };
        (-dx * scale, -dy * scale)
    }

    /// The wheel notches since the last frame, forgotten.
    pub fn take_wheel(&mut self) -> f32 {
        std::mem::take(&mut self.wheel)
    }

    /// The tool held this frame, and whether it was just pressed (then no longer "just").
    pub fn take_tool(&mut self) -> Option<(ToolButton, bool)> {
        let tool = self.tool;
        if let Some((button, _)) = tool {
            self.tool = if std::mem::take(&mut self.tool_released) {
                None
            } else {
                Some((button, false))
            };
        }
        tool
    }

    /// The window lost focus or the mouse was let go: nothing stays held.
    pub fn release_all(&mut self) {
        self.controls = Controls::default();
        self.modifiers = Modifiers::default();
        self.tool = None;
        self.tool_released = false;
        self.turn = (0.0, 0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movement_keys_are_held_and_commands_fire_once() {
        let mut input = Input::default();
        assert_eq!(input.button(Button::KeyW, true, false), None);
        assert!(input.controls.forward);
        input.button(Button::KeyW, false, false);
        assert!(!input.controls.forward);
        assert_eq!(
            input.button(Button::KeyL, true, false),
            Some(Command::ToggleWireframe)
        );
        assert_eq!(input.button(Button::KeyL, true, true), None);
        assert_eq!(input.button(Button::KeyL, false, false), None);
        assert_eq!(
            input.button(Button::KeyF, true, false),
            Some(Command::ToggleFly)
        );
        assert_eq!(
            input.button(Button::Digit3, true, false),
            Some(Command::Material(2))
        );
    }

    #[test]
    fn shift_c_toggles_the_slope_and_c_alone_chisels() {
        let mut input = Input::default();
        assert_eq!(
            input.button(Button::KeyC, true, false),
            Some(Command::Chisel)
        );
        input.button(Button::ShiftLeft, true, false);
        assert_eq!(
            input.button(Button::KeyC, true, false),
            Some(Command::ToggleSlope)
        );
    }

    #[test]
    fn ctrl_z_undoes_ctrl_y_and_ctrl_shift_z_redo_and_without_ctrl_they_do_nothing() {
        let mut input = Input::default();
        assert_eq!(input.button(Button::KeyZ, true, false), None);
        input.button(Button::ControlLeft, true, false);
        assert!(input.modifiers.control());
        assert_eq!(input.button(Button::KeyZ, true, false), Some(Command::Undo));
        assert_eq!(
            input.button(Button::KeyZ, true, true),
            None,
            "a key's auto-repeat asks for nothing"
        );
        assert_eq!(input.button(Button::KeyZ, false, false), None);
        assert_eq!(input.button(Button::KeyY, true, false), Some(Command::Redo));
        input.button(Button::ShiftRight, true, false);
        assert_eq!(input.button(Button::KeyZ, true, false), Some(Command::Redo));
        assert!(input.controls.run, "Shift still runs");
        input.button(Button::ShiftRight, false, false);
        input.button(Button::ControlLeft, false, false);
        assert_eq!(input.button(Button::KeyZ, true, false), None);
        assert_eq!(input.button(Button::KeyY, true, false), None);
        // The right Control key does the same; letting the other one go keeps it held.
        input.button(Button::ControlRight, true, false);
        input.button(Button::ControlLeft, true, false);
        input.button(Button::ControlLeft, false, false);
        assert_eq!(input.button(Button::KeyZ, true, false), Some(Command::Undo));
        input.release_all();
        assert_eq!(input.modifiers, Modifiers::default());
        assert_eq!(input.button(Button::KeyZ, true, false), None);
    }

    #[test]
    fn control_bound_to_run_still_makes_z_undo_and_not_redo() {
        let mut bindings = Bindings::default();
        bindings.bind(Button::ControlLeft, Action::Run).unwrap();
        let mut input = Input::new(bindings, Look::default());
        input.button(Button::ControlLeft, true, false);
        assert!(input.controls.run, "Control runs");
        assert_eq!(
            input.button(Button::KeyZ, true, false),
            Some(Command::Undo),
            "running is no Shift"
        );
        // Undo rebound to U: still only with Control.
        input.bindings.unbind(Button::KeyZ);
        input.bindings.bind(Button::KeyU, Action::Undo).unwrap();
        assert_eq!(input.button(Button::KeyU, true, false), Some(Command::Undo));
        input.button(Button::ControlLeft, false, false);
        assert_eq!(input.button(Button::KeyU, true, false), None);
        assert_eq!(input.button(Button::KeyZ, true, false), None);
    }

    #[test]
    fn the_first_click_captures_and_later_ones_use_the_tool() {
        let mut input = Input::default();
        assert!(input.wants_capture(Button::MouseLeft, true));
        input.button(Button::MouseLeft, true, false);
        assert_eq!(input.tool, None, "a click that captures does not act");
        input.captured = true;
        assert!(!input.wants_capture(Button::MouseRight, true));
        input.button(Button::MouseRight, true, false);
        assert_eq!(input.take_tool(), Some((ToolButton::Secondary, true)));
        assert_eq!(input.take_tool(), Some((ToolButton::Secondary, false)));
        input.button(Button::MouseLeft, false, false);
        assert!(input.tool.is_some(), "releasing the other button keeps it");
        input.button(Button::MouseRight, false, false);
        assert_eq!(input.take_tool(), None);
    }

    #[test]
    fn a_click_shorter_than_a_frame_acts_once() {
        let mut input = Input {
            captured: true,
            ..Input::default()
        };
        input.button(Button::MouseLeft, true, false);
        input.button(Button::MouseLeft, false, false);
        assert_eq!(input.take_tool(), Some((ToolButton::Primary, true)));
        assert_eq!(input.take_tool(), None, "and is let go after that frame");
        // Held over frames, it acts as held and stops when let go.
        input.button(Button::MouseRight, true, false);
        assert_eq!(input.take_tool(), Some((ToolButton::Secondary, true)));
        input.button(Button::MouseRight, false, false);
        assert_eq!(input.take_tool(), None);
    }

    #[test]
    fn the_mouse_turns_only_while_captured() {
        let mut input = Input::default();
        input.mouse_moved(100.0, 0.0);
        assert_eq!(input.take_turn(), (0.0, 0.0));
        input.captured = true;
        input.mouse_moved(100.0, -40.0);
        input.mouse_moved(f64::NAN, 0.0);
        let (yaw, pitch) = input.take_turn();
        assert!(yaw < 0.0 && pitch > 0.0, "right turns right, up looks up");
        assert_eq!(input.take_turn(), (0.0, 0.0));
        input.button(Button::KeyD, true, false);
        input.wheel_turned(f32::NAN);
        assert_eq!(input.take_wheel(), 0.0);
        input.release_all();
        assert_eq!(input.controls, Controls::default());
    }

    /// The table before bindings existed, written out, with the keys added since (save, load,
    /// the mesher, undo, redo, pick-block, hiding the HUD): the default bindings must be it
    /// exactly.
    const TODAY: &[(Button, Action)] = &[
        (Button::KeyW, Action::Forward),
        (Button::ArrowUp, Action::Forward),
        (Button::KeyS, Action::Back),
        (Button::ArrowDown, Action::Back),
        (Button::KeyA, Action::Left),
        (Button::ArrowLeft, Action::Left),
        (Button::KeyD, Action::Right),
        (Button::ArrowRight, Action::Right),
        (Button::Space, Action::Jump),
        (Button::ShiftLeft, Action::Run),
        (Button::ShiftRight, Action::Run),
        (Button::KeyE, Action::Up),
        (Button::KeyQ, Action::Down),
        (Button::KeyF, Action::Fly),
        (Button::KeyT, Action::SwitchTool),
        (Button::Digit1, Action::Material1),
        (Button::Digit2, Action::Material2),
        (Button::Digit3, Action::Material3),
        (Button::Digit4, Action::Material4),
        (Button::Digit5, Action::Material5),
        (Button::Digit6, Action::Material6),
        (Button::Comma, Action::Smaller),
        (Button::Period, Action::Larger),
        (Button::KeyC, Action::Chisel),
        (Button::KeyL, Action::Wireframe),
        (Button::KeyM, Action::Mesher),
        (Button::F2, Action::Screenshot),
        (Button::F3, Action::Detail),
        (Button::F11, Action::Fullscreen),
        (Button::Escape, Action::Escape),
        (Button::F5, Action::Save),
        (Button::F9, Action::Load),
        (Button::MouseLeft, Action::BreakOrDig),
        (Button::MouseRight, Action::PlaceOrBuild),
        (Button::KeyZ, Action::Undo),
        (Button::KeyY, Action::Redo),
        (Button::MouseMiddle, Action::PickBlock),
        (Button::F1, Action::HideHud),
    ];

    #[test]
    fn the_default_bindings_are_the_table_of_before_plus_save_load_and_mesher() {
        let bindings = Bindings::default();
        for &button in Button::ALL {
            let expected = TODAY
                .iter()
                .find(|(b, _)| *b == button)
                .map(|&(_, action)| action);
            assert_eq!(bindings.action(button), expected, "{button:?}");
        }
        // Every action has a default button.
        for &action in Action::ALL {
            assert!(!bindings.buttons(action).is_empty(), "{action}");
        }
        let mut input = Input::default();
        assert_eq!(input.button(Button::F5, true, false), Some(Command::Save));
        assert_eq!(input.button(Button::F9, true, false), Some(Command::Load));
        assert_eq!(
            input.button(Button::KeyM, true, false),
            Some(Command::SwitchMesher)
        );
        assert_eq!(input.button(Button::KeyZ, true, false), None, "no Ctrl");
        assert_eq!(input.button(Button::KeyY, true, false), None, "no Ctrl");
        assert_eq!(
            input.button(Button::MouseMiddle, true, false),
            None,
            "not captured"
        );
        assert_eq!(
            input.button(Button::F1, true, false),
            Some(Command::ToggleHud)
        );
        assert_eq!(input.button(Button::KeyO, true, false), None);
        assert_eq!(
            Input::default(),
            input,
            "unbound and command keys hold nothing"
        );
        input.captured = true;
        assert_eq!(
            input.button(Button::MouseMiddle, true, false),
            Some(Command::PickBlock)
        );
        assert_eq!(input.take_tool(), None, "the middle button is no tool's");
    }

    #[test]
    fn the_help_names_buttons_shortly() {
        let bindings = Bindings::default();
        let labels: Vec<String> = [
            Action::Forward,
            Action::Material1,
            Action::Run,
            Action::Smaller,
            Action::Save,
            Action::Escape,
            Action::BreakOrDig,
        ]
        .iter()
        .map(|&action| bindings.label(action))
        .collect();
        assert_eq!(labels, ["W", "1", "Shift", ",", "F5", "Esc", "left"]);
        assert_eq!(Button::Numpad4.label(), "Num4");
        assert_eq!(Button::Backslash.label(), "\\");
        assert_eq!(Button::Enter.label(), "Enter");
        assert_eq!(Bindings::none().label(Action::Fly), "unbound");
    }

    #[test]
    fn the_lists_index_their_enums() {
        for (index, &button) in Button::ALL.iter().enumerate() {
            assert_eq!(button as usize, index);
        }
        for (index, &action) in Action::ALL.iter().enumerate() {
            assert_eq!(action as usize, index);
        }
        // Names as scenes and settings write them.
        let button: Button = serde_json::from_str("\"KeyW\"").unwrap();
        assert_eq!(button, Button::KeyW);
        assert_eq!(Button::Numpad7.name(), "Numpad7");
        let action: Action = serde_json::from_str("\"material_3\"").unwrap();
        assert_eq!(action, Action::Material3);
        assert_eq!(Action::BreakOrDig.name(), "break_or_dig");
        assert_eq!(
            serde_json::to_string(&Action::SwitchTool).unwrap(),
            "\"switch_tool\""
        );
    }

    #[test]
    fn rebound_keys_do_what_they_are_bound_to() {
        let mut bindings = Bindings::default();
        bindings.unbind(Button::KeyF);
        bindings.unbind(Button::KeyZ);
        bindings.bind(Button::KeyZ, Action::Fly).unwrap();
        bindings.unbind(Button::MouseLeft);
        bindings.bind(Button::KeyX, Action::BreakOrDig).unwrap();
        bindings.bind(Button::ControlLeft, Action::Run).unwrap();
        let mut input = Input::new(bindings, Look::default());
        assert_eq!(input.button(Button::KeyF, true, false), None);
        assert_eq!(
            input.button(Button::KeyZ, true, false),
            Some(Command::ToggleFly)
        );
        // The tool's action on a key acts only while captured, as the mouse's does.
        input.button(Button::KeyX, true, false);
        assert_eq!(input.tool, None);
        input.captured = true;
        input.button(Button::KeyX, true, false);
        assert_eq!(input.take_tool(), Some((ToolButton::Primary, true)));
        input.button(Button::MouseLeft, false, false);
        assert!(
            input.tool.is_some(),
            "the mouse's left button does nothing now"
        );
        input.button(Button::KeyX, false, false);
        assert_eq!(input.tool, None);
        // Shift+chisel is run+chisel, whatever run is bound to.
        input.button(Button::ControlLeft, true, false);
        assert!(input.controls.run);
        assert_eq!(
            input.button(Button::KeyC, true, false),
            Some(Command::ToggleSlope)
        );
        assert_eq!(
            bindings.bind(Button::KeyW, Action::Jump),
            Err(BindingConflict {
                button: Button::KeyW,
                first: Action::Forward,
                second: Action::Jump
            })
        );
        assert_eq!(
            BindingConflict {
                button: Button::KeyW,
                first: Action::Forward,
                second: Action::Jump
            }
            .to_string(),
            "KeyW is bound to both forward and jump"
        );
    }

    #[test]
    fn lists_refuse_a_button_twice_and_left_out_actions_keep_their_free_defaults() {
        let bindings = Bindings::from_lists([
            (Action::Forward, vec![Button::KeyF]),
            (Action::Jump, vec![]),
        ])
        .unwrap();
        assert_eq!(bindings.action(Button::KeyF), Some(Action::Forward));
        assert_eq!(bindings.action(Button::KeyW), None, "forward is listed");
        assert_eq!(bindings.action(Button::Space), None, "jump is unbound");
        assert!(bindings.buttons(Action::Fly).is_empty(), "KeyF is taken");
        assert_eq!(bindings.action(Button::KeyT), Some(Action::SwitchTool));
        let conflict = Bindings::from_lists([
            (Action::Save, vec![Button::F5]),
            (Action::Load, vec![Button::F9, Button::F5]),
        ])
        .unwrap_err();
        assert_eq!(conflict.button, Button::F5);
        // Through serde: the same rules, and a round trip.
        let json = serde_json::to_string(&Bindings::default()).unwrap();
        assert!(
            json.starts_with("{\"forward\":[\"KeyW\",\"ArrowUp\"]"),
            "{json}"
        );
        let back: Bindings = serde_json::from_str(&json).unwrap();
        assert_eq!(back, Bindings::default());
        let error = serde_json::from_str::<Bindings>(r#"{"forward": ["KeyW"], "fly": ["KeyW"]}"#)
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("KeyW is bound to both forward and fly"),
            "{error}"
        );
        // Left out, forward keeps only what fly did not take.
        let bindings: Bindings = serde_json::from_str(r#"{"fly": ["KeyW"]}"#).unwrap();
        assert_eq!(bindings.buttons(Action::Forward), [Button::ArrowUp]);
        let error =
            serde_json::from_str::<Bindings>(r#"{"fly": ["KeyF"], "fly": []}"#).unwrap_err();
        assert!(error.to_string().contains("fly is listed twice"), "{error}");
    }

    #[test]
    fn sensitivity_scales_the_turn_and_invert_flips_the_pitch() {
        let mut input = Input {
            captured: true,
            ..Input::default()
        };
        input.mouse_moved(10.0, 4.0);
        assert_eq!(
            input.take_turn(),
            (
                -10.0 * MOUSE_RADIANS_PER_PIXEL,
                -4.0 * MOUSE_RADIANS_PER_PIXEL
            ),
            "the default is the turn of before, to the bit"
        );
        input.look = Look {
            sensitivity: 2.0,
            invert_y: true,
        };
        input.mouse_moved(10.0, 4.0);
        let (yaw, pitch) = input.take_turn();
        assert_eq!(yaw, -20.0 * MOUSE_RADIANS_PER_PIXEL);
        assert_eq!(pitch, 8.0 * MOUSE_RADIANS_PER_PIXEL);
        input.release_all();
        assert_eq!(input.look.sensitivity, 2.0, "letting go keeps the settings");
    }

    #[test]
    fn save_and_load_come_back_from_the_world_and_its_view_takes_the_field_of_view() {
        use std::sync::Arc;

        use blockfall_physics::workers::WorkerPool;
        use ultraviolet::Vec3;

        use crate::terrain::PlaneGround;
        use crate::world::World;

        let pool = WorkerPool::new(1).unwrap();
        let mut world = World::on(Arc::new(PlaneGround::flat(0.0)), 2, pool);
        let mut input = Input::default();
        let commands: Vec<Command> = [Button::F5, Button::F9, Button::F2]
            .into_iter()
            .filter_map(|button| input.button(button, true, false))
            .collect();
        let report = world.frame(1.0 / 60.0, &mut input, &commands);
        assert_eq!(
            report.commands,
            [Command::Save, Command::Load, Command::Screenshot]
        );
        // A point off the axis moves toward the middle of the picture as the view widens.
        let point = world.eye() + Vec3::new(0.0, 1.0, 10.0);
        let (_, narrow) = world.view(640, 480, 70.0).project(point, 640, 480).unwrap();
        let (_, wide) = world
            .view(640, 480, 110.0)
            .project(point, 640, 480)
            .unwrap();
        assert!(
            (wide - 240.0).abs() < (narrow - 240.0).abs(),
            "{narrow} {wide}"
        );
    }
}
