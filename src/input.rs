//! The window's keys and buttons, named as the game names them ([`Button`]): winit's physical
//! key codes and mouse buttons mapped onto the buttons of `blockfall_game::input`, so the window,
//! scripted runs and `sim` scenes share one set of names, and the player's bindings
//! (`settings.ron`) say what each does.

pub use blockfall_game::input::{
    Action, Bindings, Button, Command, Input, Look, ToolButton, MOUSE_RADIANS_PER_PIXEL,
};
use winit::event::MouseButton;
use winit::keyboard::KeyCode;

/// The key codes and buttons of the same names, both ways.
macro_rules! same_names {
    ($($name:ident)*) => {
        /// The game's name for a key, by its place on the keyboard; `None` for keys it does not
        /// know.
        pub fn key_button(code: KeyCode) -> Option<Button> {
            match code {
                $(KeyCode::$name => Some(Button::$name),)*
                _ => None,
            }
        }

        /// The key code of a button; `None` for the mouse's.
        pub fn key_code(button: Button) -> Option<KeyCode> {
            match button {
                $(Button::$name => Some(KeyCode::$name),)*
                _ => None,
            }
        }
    };
}

same_names! {
    KeyA KeyB KeyC KeyD KeyE KeyF KeyG KeyH KeyI KeyJ KeyK KeyL KeyM
    KeyN KeyO KeyP KeyQ KeyR KeyS KeyT KeyU KeyV KeyW KeyX KeyY KeyZ
    Digit0 Digit1 Digit2 Digit3 Digit4 Digit5 Digit6 Digit7 Digit8 Digit9
    F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12
    ArrowUp ArrowDown ArrowLeft ArrowRight
    Space Enter Tab Backspace Escape
    ShiftLeft ShiftRight ControlLeft ControlRight AltLeft AltRight
    Comma Period Slash Semicolon Quote BracketLeft BracketRight Minus Equal
    Backquote Backslash
    Numpad0 Numpad1 Numpad2 Numpad3 Numpad4 Numpad5 Numpad6 Numpad7 Numpad8 Numpad9
}

/// The game's name for a mouse button; `None` for the ones it does not know.
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
    fn every_button_maps_from_the_key_code_or_mouse_button_of_its_name() {
        // The names are winit's: a script's "KeyW" is the key the window reads as KeyW.
        for &button in Button::ALL {
            match button {
                Button::MouseLeft | Button::MouseRight | Button::MouseMiddle => {
                    assert_eq!(key_code(button), None);
                }
                _ => {
                    let code = key_code(button).unwrap_or_else(|| panic!("{button:?}"));
                    assert_eq!(format!("{code:?}"), format!("{button:?}"));
                    assert_eq!(key_button(code), Some(button));
                }
            }
        }
        assert_eq!(key_button(KeyCode::Pause), None);
        assert_eq!(key_button(KeyCode::NumpadAdd), None);
        assert_eq!(mouse_button(MouseButton::Left), Some(Button::MouseLeft));
        assert_eq!(mouse_button(MouseButton::Right), Some(Button::MouseRight));
        assert_eq!(mouse_button(MouseButton::Middle), Some(Button::MouseMiddle));
        assert_eq!(mouse_button(MouseButton::Back), None);
    }
}
