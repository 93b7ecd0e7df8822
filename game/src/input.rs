//! The game's controls, the same for the window, scripted runs and `sim` scenes (docs/player.md):
//! keys and buttons by their names ([`Button`], winit's `KeyCode` names and `MouseLeft`,
//! `MouseRight`, `MouseMiddle`), what is held now and what was asked for since the last frame
//! ([`Input`]), and what a press asks for ([`Command`]).
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
//! | L, F2, F3, F11, Esc | wireframe, screenshot, HUD detail, fullscreen, free the mouse (twice: quit) | same |
//!
//! Keys are named by their place on the keyboard, so WASD sit under the same fingers on any
//! layout.

use serde::Deserialize;

use crate::player::Controls;

/// Radians the view turns per pixel the mouse moves.
pub const MOUSE_RADIANS_PER_PIXEL: f32 = 0.0025;

/// A key or mouse button the game knows, by winit's `KeyCode` name (and `Mouse…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
pub enum Button {
    KeyW,
    KeyA,
    KeyS,
    KeyD,
    KeyQ,
    KeyE,
    KeyF,
    KeyT,
    KeyC,
    KeyL,
    Space,
    ShiftLeft,
    ShiftRight,
    ArrowUp,
    ArrowDown,
    ArrowLeft,
    ArrowRight,
    Digit1,
    Digit2,
    Digit3,
    Digit4,
    Digit5,
    Digit6,
    Comma,
    Period,
    Escape,
    F2,
    F3,
    F11,
    MouseLeft,
    MouseRight,
    MouseMiddle,
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
    /// F2: a PNG of what is on screen.
    Screenshot,
    /// F3: the HUD's detail (passes, timings).
    ToggleDetail,
    /// F11.
    ToggleFullscreen,
    /// Escape: let the mouse go, or quit when it is free.
    Escape,
}

/// What is held down now, and what was asked for since the last frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    pub controls: Controls,
    /// The tool's button held, and whether it went down since the last frame.
    pub tool: Option<(ToolButton, bool)>,
    /// Wheel notches since the last frame (up is positive).
    pub wheel: f32,
    /// Mouse movement since the last frame, in pixels.
    pub turn: (f32, f32),
    /// Whether the mouse turns the view and clicks act (a scripted run starts captured).
    pub captured: bool,
}

impl Input {
    /// A button went down (`down`) or up; `repeat` for a key's auto-repeat. Returns the command
    /// it asks for, if any. Mouse buttons act only while captured; a click while free captures
    /// ([`Input::wants_capture`] tells the window).
    pub fn button(&mut self, button: Button, down: bool, repeat: bool) -> Option<Command> {
        let held = match button {
            Button::KeyW | Button::ArrowUp => Some(&mut self.controls.forward),
            Button::KeyS | Button::ArrowDown => Some(&mut self.controls.back),
            Button::KeyA | Button::ArrowLeft => Some(&mut self.controls.left),
            Button::KeyD | Button::ArrowRight => Some(&mut self.controls.right),
            Button::Space => Some(&mut self.controls.jump),
            Button::ShiftLeft | Button::ShiftRight => Some(&mut self.controls.run),
            Button::KeyE => Some(&mut self.controls.up),
            Button::KeyQ => Some(&mut self.controls.down),
            _ => None,
        };
        if let Some(held) = held {
            *held = down;
            return None;
        }
        let tool = match button {
            Button::MouseLeft => Some(ToolButton::Primary),
            Button::MouseRight => Some(ToolButton::Secondary),
            Button::MouseMiddle => return None,
            _ => None,
        };
        if let Some(tool) = tool {
            if down && self.captured {
                self.tool = Some((tool, true));
            } else if !down && self.tool.is_some_and(|(held, _)| held == tool) {
                self.tool = None;
            }
            return None;
        }
        if !down || repeat {
            return None;
        }
        Some(match button {
            Button::KeyF => Command::ToggleFly,
            Button::KeyT => Command::SwitchTool,
            Button::KeyC if self.controls.run => Command::ToggleSlope,
            Button::KeyC => Command::Chisel,
            Button::KeyL => Command::ToggleWireframe,
            Button::Digit1 => Command::Material(0),
            Button::Digit2 => Command::Material(1),
            Button::Digit3 => Command::Material(2),
            Button::Digit4 => Command::Material(3),
            Button::Digit5 => Command::Material(4),
            Button::Digit6 => Command::Material(5),
            Button::Comma => Command::BlockSize(-1),
            Button::Period => Command::BlockSize(1),
            Button::Escape => Command::Escape,
            Button::F2 => Command::Screenshot,
            Button::F3 => Command::ToggleDetail,
            Button::F11 => Command::ToggleFullscreen,
            _ => return None,
        })
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
    /// the mouse right turns right, up looks up.
    pub fn take_turn(&mut self) -> (f32, f32) {
        let (dx, dy) = std::mem::take(&mut self.turn);
        (-dx * MOUSE_RADIANS_PER_PIXEL, -dy * MOUSE_RADIANS_PER_PIXEL)
    }

    /// The wheel notches since the last frame, forgotten.
    pub fn take_wheel(&mut self) -> f32 {
        std::mem::take(&mut self.wheel)
    }

    /// The tool held this frame, and whether it was just pressed (then no longer "just").
    pub fn take_tool(&mut self) -> Option<(ToolButton, bool)> {
        let tool = self.tool;
        if let Some((button, _)) = tool {
            self.tool = Some((button, false));
        }
        tool
    }

    /// The window lost focus or the mouse was let go: nothing stays held.
    pub fn release_all(&mut self) {
        self.controls = Controls::default();
        self.tool = None;
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
}
