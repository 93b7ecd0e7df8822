//! The keys and buttons of the window (docs/player.md): a click captures the mouse so
//! that it turns the view; WASD walk, Shift runs, Space jumps, F flies (Q/E down and up); while
//! the mouse is captured the left button digs and the right one builds, the wheel sizes the
//! tool; L toggles the terrain's wireframe; Escape lets the mouse go, and a second Escape quits.
//!
//! Keys are read by their place on the keyboard (`KeyCode`), so WASD sit under the same fingers
//! on any layout.

use blockfall_game::player::Controls;
use blockfall_game::world::ToolAction;
use winit::event::{ElementState, MouseButton};
use winit::keyboard::KeyCode;

/// Radians the view turns per pixel the mouse moves.
pub const MOUSE_RADIANS_PER_PIXEL: f32 = 0.0025;

/// What a key press asks for, besides the held movement keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    ToggleFly,
    ToggleWireframe,
    /// Escape: let the mouse go, or quit when it is free.
    Escape,
}

/// What is held down now, and what was pressed since the last frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Input {
    pub controls: Controls,
    /// The tool's button held, and whether it went down since the last frame.
    pub tool: Option<(ToolAction, bool)>,
    /// Wheel notches since the last frame (up is positive).
    pub wheel: f32,
    /// Mouse movement since the last frame, in pixels.
    pub turn: (f32, f32),
    pub captured: bool,
}

impl Input {
    /// A key went down or up; returns a command for keys that are not held movement keys.
    pub fn key(&mut self, code: KeyCode, state: ElementState, repeat: bool) -> Option<Command> {
        let down = state == ElementState::Pressed;
        let held = match code {
            KeyCode::KeyW | KeyCode::ArrowUp => Some(&mut self.controls.forward),
            KeyCode::KeyS | KeyCode::ArrowDown => Some(&mut self.controls.back),
            KeyCode::KeyA | KeyCode::ArrowLeft => Some(&mut self.controls.left),
            KeyCode::KeyD | KeyCode::ArrowRight => Some(&mut self.controls.right),
            KeyCode::Space => Some(&mut self.controls.jump),
            KeyCode::ShiftLeft | KeyCode::ShiftRight => Some(&mut self.controls.run),
            KeyCode::KeyE => Some(&mut self.controls.up),
            KeyCode::KeyQ => Some(&mut self.controls.down),
            _ => None,
        };
        if let Some(held) = held {
            *held = down;
            return None;
        }
        if !down || repeat {
            return None;
        }
        match code {
            KeyCode::KeyF => Some(Command::ToggleFly),
            KeyCode::KeyL => Some(Command::ToggleWireframe),
            KeyCode::Escape => Some(Command::Escape),
            _ => None,
        }
    }

    /// A mouse button went down or up. Returns true when the click should capture the mouse
    /// (it was free: the click captures and does not dig).
    pub fn button(&mut self, button: MouseButton, state: ElementState) -> bool {
        let action = match button {
            MouseButton::Left => ToolAction::Dig,
            MouseButton::Right => ToolAction::Build,
            _ => return false,
        };
        match state {
            ElementState::Pressed if !self.captured => true,
            ElementState::Pressed => {
                self.tool = Some((action, true));
                false
            }
            ElementState::Released => {
                if self.tool.is_some_and(|(held, _)| held == action) {
                    self.tool = None;
                }
                false
            }
        }
    }

    /// The mouse moved by `(dx, dy)` pixels; it turns the view only while captured.
    pub fn mouse_moved(&mut self, dx: f64, dy: f64) {
        if self.captured && dx.is_finite() && dy.is_finite() {
            self.turn.0 += dx as f32;
            self.turn.1 += dy as f32;
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
    pub fn take_tool(&mut self) -> Option<(ToolAction, bool)> {
        let tool = self.tool;
        if let Some((action, _)) = tool {
            self.tool = Some((action, false));
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
        assert_eq!(input.key(KeyCode::KeyW, ElementState::Pressed, false), None);
        assert!(input.controls.forward);
        input.key(KeyCode::KeyW, ElementState::Released, false);
        assert!(!input.controls.forward);
        assert_eq!(
            input.key(KeyCode::KeyL, ElementState::Pressed, false),
            Some(Command::ToggleWireframe)
        );
        assert_eq!(input.key(KeyCode::KeyL, ElementState::Pressed, true), None);
        assert_eq!(
            input.key(KeyCode::KeyL, ElementState::Released, false),
            None
        );
        assert_eq!(
            input.key(KeyCode::KeyF, ElementState::Pressed, false),
            Some(Command::ToggleFly)
        );
    }

    #[test]
    fn the_first_click_captures_and_later_ones_dig_or_build() {
        let mut input = Input::default();
        assert!(input.button(MouseButton::Left, ElementState::Pressed));
        assert_eq!(input.tool, None);
        input.captured = true;
        assert!(!input.button(MouseButton::Right, ElementState::Pressed));
        assert_eq!(input.take_tool(), Some((ToolAction::Build, true)));
        assert_eq!(input.take_tool(), Some((ToolAction::Build, false)));
        input.button(MouseButton::Left, ElementState::Released);
        assert!(
            input.tool.is_some(),
            "releasing the other button keeps building"
        );
        input.button(MouseButton::Right, ElementState::Released);
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
        input.key(KeyCode::KeyD, ElementState::Pressed, false);
        input.release_all();
        assert_eq!(input.controls, Controls::default());
    }
}
