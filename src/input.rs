//! The window's keys and buttons, named as the game names them ([`Button`]): winit's physical
//! key codes and mouse buttons mapped onto the controls of `blockfall_game::input`, so the window,
//! scripted runs and `sim` scenes share one table of what each control does.

pub use blockfall_game::input::{Button, Command, Input, ToolButton, MOUSE_RADIANS_PER_PIXEL};
use winit::event::MouseButton;
use winit::keyboard::KeyCode;

/// The game's name for a key, by its place on the keyboard; `None` for keys it does not use.
pub fn key_button(code: KeyCode) -> Option<Button> {
    Some(match code {
        KeyCode::KeyW => Button::KeyW,
        KeyCode::KeyA => Button::KeyA,
        KeyCode::KeyS => Button::KeyS,
        KeyCode::KeyD => Button::KeyD,
        KeyCode::KeyQ => Button::KeyQ,
        KeyCode::KeyE => Button::KeyE,
        KeyCode::KeyF => Button::KeyF,
        KeyCode::KeyT => Button::KeyT,
        KeyCode::KeyC => Button::KeyC,
        KeyCode::KeyL => Button::KeyL,
        KeyCode::Space => Button::Space,
        KeyCode::ShiftLeft => Button::ShiftLeft,
        KeyCode::ShiftRight => Button::ShiftRight,
        KeyCode::ArrowUp => Button::ArrowUp,
        KeyCode::ArrowDown => Button::ArrowDown,
        KeyCode::ArrowLeft => Button::ArrowLeft,
        KeyCode::ArrowRight => Button::ArrowRight,
        KeyCode::Digit1 => Button::Digit1,
        KeyCode::Digit2 => Button::Digit2,
        KeyCode::Digit3 => Button::Digit3,
        KeyCode::Digit4 => Button::Digit4,
        KeyCode::Digit5 => Button::Digit5,
        KeyCode::Digit6 => Button::Digit6,
        KeyCode::Comma => Button::Comma,
        KeyCode::Period => Button::Period,
        KeyCode::Escape => Button::Escape,
        KeyCode::F2 => Button::F2,
        KeyCode::F3 => Button::F3,
        KeyCode::F11 => Button::F11,
        _ => return None,
    })
}

/// The game's name for a mouse button; `None` for the ones it does not use.
pub fn mouse_button(button: MouseButton) -> Option<Button> {
    match button {
        MouseButton::Left => Some(Button::MouseLeft),
        MouseButton::Right => Some(Button::MouseRight),
        MouseButton::Middle => Some(Button::MouseMiddle),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_the_game_names_maps_from_its_key_code() {
        // The names are winit's: a script's "KeyW" is the key the window reads as KeyW.
        for (code, name) in [
            (KeyCode::KeyW, "KeyW"),
            (KeyCode::Digit6, "Digit6"),
            (KeyCode::Comma, "Comma"),
            (KeyCode::F11, "F11"),
            (KeyCode::ShiftRight, "ShiftRight"),
        ] {
            let button = key_button(code).unwrap();
            assert_eq!(format!("{button:?}"), name);
            assert_eq!(format!("{code:?}"), name);
        }
        assert_eq!(key_button(KeyCode::KeyZ), None);
        assert_eq!(mouse_button(MouseButton::Left), Some(Button::MouseLeft));
    }
}
