//! The pause menu and its screens (Settings, Worlds), as a model the window, headless and
//! scripted runs share: what is open, which row is chosen, what each key does there, and what
//! the run is asked to do ([`MenuRequest`]). It draws nothing itself: [`Menu::view`] is what
//! the HUD lays out over the frozen world, and a click on the HUD comes back as a
//! [`MenuClick`].
//!
//! ```text
//!   Esc ─▶ Pause: Resume · Settings · Save · Load · Worlds · Quit          Esc: resume
//!            ├─ Settings: mouse, view, HUD, window, every key binding     Esc: back
//!            └─ Worlds: each world (name, seed, last played, size) · New world · Back
//!                 ├─ New world: its seed typed, then Create
//!                 └─ Delete NAME?: Yes · No
//! ```
//!
//! Keys in the menu: Up/Down (or W/S) choose a row, Left/Right change a setting, Enter
//! activates, Esc goes back (closes the pause menu), X asks to delete the chosen world.
//! Rebinding a key: Enter on its row, then the new button (Esc cancels, Backspace leaves the
//! action unbound); a button another action holds is refused and the clash named.
//!
//! A script drives it with `press` events (the same keys) or `menu` events: `"pause"` opens
//! it, `"resume"` closes it, a row's id chooses and activates that row (`"settings"`,
//! `"save"`, `"quit"`, `"world:NAME"`, `"delete:NAME"`, `"new"`, `"create"`, `"yes"`,
//! `"back"`), and `"KEY=VALUE"` sets a setting as `settings.ron` writes it
//! (`"fov_degrees=100"`, `"shadows=Low"`, `"seed=42"` on the New world screen).

use std::path::PathBuf;

use blockfall_game::input::{Action, Button};
use blockfall_game::settings::{
    Settings, Shadows, FIELD_OF_VIEW_RANGE, HUD_SCALE_RANGE, SENSITIVITY_RANGE,
};
pub use blockfall_game_render::hud::MenuClick;
use blockfall_game_render::hud::{MenuRow, MenuView};

use crate::worlds::WorldEntry;

/// A screen of the menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    Pause,
    Settings,
    Worlds,
    /// A new world: its seed, as typed.
    NewWorld,
    /// Asks before deleting the world at this path (its name).
    ConfirmDelete(PathBuf, String),
}

impl Screen {
    /// The name a script's state line gives it: `pause`, `settings` or `worlds` (the new
    /// world and delete screens are parts of the worlds screen).
    pub fn name(&self) -> &'static str {
        match self {
            Screen::Pause => "pause",
            Screen::Settings => "settings",
            Screen::Worlds | Screen::NewWorld | Screen::ConfirmDelete(..) => "worlds",
        }
    }
}

/// What the menu asks of the run.
#[derive(Debug, Clone, PartialEq)]
pub enum MenuRequest {
    /// The menu closed: back to play (the window captures the mouse again).
    Resume,
    Save,
    Load,
    /// Save and leave.
    Quit,
    /// The settings changed to these: applied at once and written to the settings file.
    Settings(Box<Settings>),
    /// Save this world and open the one at this path.
    OpenWorld(PathBuf),
    /// Save this world and make a new one of this seed.
    NewWorld(u32),
    /// Delete the world at this path (asked already).
    DeleteWorld(PathBuf),
    /// The Worlds screen opened: the run lists the worlds ([`Menu::set_worlds`]).
    ListWorlds,
}

/// What a row is.
#[derive(Debug, Clone, PartialEq)]
enum RowKind {
    /// A choice that acts (Resume, Save, a world, Create, Back).
    Choice,
    /// A setting changed with Left/Right (a toggle also with Enter).
    Setting(&'static str),
    /// A key binding: Enter waits for the new button.
    Binding(Action),
    /// The new world's seed: digits typed.
    Seed,
}

/// One row of the screen shown.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    /// How a script names it (`settings`, `fov_degrees`, `key:jump`, `world:NAME`).
    id: String,
    label: String,
    value: Option<String>,
    kind: RowKind,
    /// A world's row: it can be deleted.
    deletable: bool,
}

impl Row {
    fn choice(id: &str, label: &str) -> Self {
        Row {
            id: id.into(),
            label: label.into(),
            value: None,
            kind: RowKind::Choice,
            deletable: false,
        }
    }
}

/// The settings the Settings screen offers, in its order (the keys of `settings.ron`).
pub const SETTING_KEYS: [&str; 14] = [
    "mouse_sensitivity",
    "invert_mouse_y",
    "fov_degrees",
    "view_radius",
    "shadows",
    "mesher",
    "hud_scale",
    "crosshair",
    "vsync",
    "fullscreen",
    "master_volume",
    "effects_volume",
    "camera_shake",
    "particles",
];

/// The pause menu and its screens, closed at first.
#[derive(Debug, Clone, Default)]
pub struct Menu {
    /// The screens open, the one shown last; empty: closed.
    stack: Vec<Screen>,
    /// The row chosen on the screen shown.
    selected: usize,
    /// The action waiting for its new button (Settings).
    rebinding: Option<Action>,
    /// The new world's seed, as typed.
    seed: String,
    /// A line under the rows: a clash named, a world that could not be opened.
    pub note: Option<String>,
    /// The worlds of the data folder, as last listed.
    worlds: Vec<WorldEntry>,
    /// The world being played, marked in the list.
    pub current_world: Option<PathBuf>,
    /// The largest view radius the device holds (the Settings screen stops there).
    pub most_view_radius: u32,
    /// What the run is asked to do, in order.
    requests: Vec<MenuRequest>,
    /// The settings last asked for and not yet taken by the run.
    asked_settings: Option<Settings>,
}

impl Menu {
    /// Whether a screen is open (the world does not step).
    pub fn is_open(&self) -> bool {
        !self.stack.is_empty()
    }

    /// The screen shown.
    pub fn screen(&self) -> Option<&Screen> {
        self.stack.last()
    }

    /// The name of the screen shown, for a script's state line (`None`: closed).
    pub fn state(&self) -> Option<&'static str> {
        self.screen().map(Screen::name)
    }

    /// Opens the pause menu (nothing when a screen is open).
    pub fn open(&mut self) {
        if self.stack.is_empty() {
            self.push(Screen::Pause);
        }
    }

    /// What the run is asked to do since the last call, in order.
    pub fn take_requests(&mut self) -> Vec<MenuRequest> {
        // The run applies the settings asked for: they are the player's from now on.
        self.asked_settings = None;
        std::mem::take(&mut self.requests)
    }

    /// The settings a change starts from: the last asked of the run and not yet applied, else
    /// the player's (several changes in one frame build on each other).
    fn latest(&self, settings: &Settings) -> Settings {
        self.asked_settings
            .clone()
            .unwrap_or_else(|| settings.clone())
    }

    /// Asks the run to apply `settings`.
    fn ask_settings(&mut self, settings: Settings) {
        self.asked_settings = Some(settings.clone());
        self.requests
            .push(MenuRequest::Settings(Box::new(settings)));
    }

    /// The worlds of the data folder, listed by the run for the Worlds screen.
    pub fn set_worlds(&mut self, worlds: Vec<WorldEntry>) {
        self.worlds = worlds;
        if self.screen() == Some(&Screen::Worlds) {
            // The list may have shrunk (a world deleted): its rows, then New world and Back.
            self.selected = self.selected.min(self.worlds.len() + 1);
        }
    }

    fn push(&mut self, screen: Screen) {
        if screen == Screen::Worlds {
            self.requests.push(MenuRequest::ListWorlds);
        }
        if screen == Screen::NewWorld {
            self.seed = random_seed().to_string();
        }
        self.stack.push(screen);
        self.selected = 0;
        self.rebinding = None;
        self.note = None;
    }

    /// Back one screen; from the pause menu, closed (back to play).
    pub fn back(&mut self) {
        self.rebinding = None;
        self.note = None;
        let left = self.stack.pop();
        self.selected = match (&left, self.stack.last()) {
            // Back on the pause menu at the row that was left.
            (Some(Screen::Settings), Some(Screen::Pause)) => 1,
            (Some(Screen::Worlds), Some(Screen::Pause)) => 4,
            _ => 0,
        };
        if self.stack.is_empty() {
            self.requests.push(MenuRequest::Resume);
        }
    }

    /// Closes every screen: back to play.
    pub fn close(&mut self) {
        if self.is_open() {
            self.stack.clear();
            self.rebinding = None;
            self.requests.push(MenuRequest::Resume);
        }
    }

    /// The rows of the screen shown.
    fn rows(&self, settings: &Settings) -> Vec<Row> {
        let Some(screen) = self.screen() else {
            return Vec::new();
        };
        match screen {
            Screen::Pause => vec![
                Row::choice("resume", "Resume"),
                Row::choice("settings", "Settings"),
                Row::choice("save", "Save"),
                Row::choice("load", "Load"),
                Row::choice("worlds", "Worlds"),
                Row::choice("quit", "Quit (saves first)"),
            ],
            Screen::Settings => {
                let mut rows: Vec<Row> = SETTING_KEYS
                    .iter()
                    .map(|&key| Row {
                        id: key.into(),
                        label: setting_label(key).into(),
                        value: Some(self.setting_value(key, settings)),
                        kind: RowKind::Setting(key),
                        deletable: false,
                    })
                    .collect();
                for &action in Action::ALL {
                    let buttons = settings.bindings.buttons(action);
                    let value = if self.rebinding == Some(action) {
                        "press a key…".to_owned()
                    } else if buttons.is_empty() {
                        "unbound".to_owned()
                    } else {
                        // Both Shifts are "Shift": each name once.
                        let mut labels: Vec<String> = Vec::new();
                        for label in buttons.iter().map(|button| button.label()) {
                            if !labels.contains(&label) {
                                labels.push(label);
                            }
                        }
                        labels.join(", ")
                    };
                    rows.push(Row {
                        id: format!("key:{}", action.name()),
                        label: format!("key: {}", action.name().replace('_', " ")),
                        value: Some(value),
                        kind: RowKind::Binding(action),
                        deletable: false,
                    });
                }
                rows.push(Row::choice("back", "Back"));
                rows
            }
            Screen::Worlds => {
                let mut rows: Vec<Row> = self
                    .worlds
                    .iter()
                    .map(|world| {
                        let open = self.current_world.as_deref() == Some(world.path.as_path());
                        Row {
                            id: format!("world:{}", world.name),
                            label: if open {
                                format!("{} (playing)", world.name)
                            } else {
                                world.name.clone()
                            },
                            value: Some(world.summary()),
                            kind: RowKind::Choice,
                            deletable: !open,
                        }
                    })
                    .collect();
                rows.push(Row::choice("new", "New world…"));
                rows.push(Row::choice("back", "Back"));
                rows
            }
            Screen::NewWorld => vec![
                Row {
                    id: "seed".into(),
                    label: "Seed (type digits)".into(),
                    value: Some(if self.seed.is_empty() {
                        "_".into()
                    } else {
                        self.seed.clone()
                    }),
                    kind: RowKind::Seed,
                    deletable: false,
                },
                Row::choice("create", "Create and play"),
                Row::choice("back", "Back"),
            ],
            Screen::ConfirmDelete(_, name) => vec![
                Row::choice("no", "No, keep it"),
                Row::choice("yes", &format!("Yes, delete {name}")),
            ],
        }
    }

    /// The title and help of the screen shown.
    fn title(&self) -> (String, String) {
        let keys = "Up/Down choose · Enter select · Esc back";
        match self.screen() {
            None => (String::new(), String::new()),
            Some(Screen::Pause) => ("Paused".into(), "Up/Down choose · Enter select · Esc resume".into()),
            Some(Screen::Settings) => (
                "Settings".into(),
                "Left/Right change · Enter on a key: press the new key (Backspace: unbound) · Esc back"
                    .into(),
            ),
            Some(Screen::Worlds) => (
                "Worlds".into(),
                format!("{keys} · X: delete the chosen world"),
            ),
            Some(Screen::NewWorld) => ("New world".into(), format!("digits: the seed · {keys}")),
            Some(Screen::ConfirmDelete(_, name)) => (
                format!("Delete {name}?"),
                "It cannot be undone · Enter select · Esc keep it".into(),
            ),
        }
    }

    /// What the HUD draws of the menu; `None` while it is closed.
    pub fn view(&self, settings: &Settings) -> Option<MenuView> {
        self.screen()?;
        let (title, help) = self.title();
        Some(MenuView {
            title,
            rows: self
                .rows(settings)
                .into_iter()
                .enumerate()
                .map(|(index, row)| MenuRow {
                    label: row.label,
                    value: row.value,
                    selected: index == self.selected,
                    steps: matches!(row.kind, RowKind::Setting(_)),
                    deletable: row.deletable,
                })
                .collect(),
            help,
            note: self.note.clone(),
        })
    }

    /// A button pressed while the menu is open. `settings` are the player's; a change to them
    /// is asked of the run ([`MenuRequest::Settings`]).
    pub fn key(&mut self, button: Button, settings: &Settings) {
        if let Some(action) = self.rebinding {
            self.rebind(action, button, settings);
            return;
        }
        let rows = self.rows(settings);
        match button {
            Button::Escape => self.back(),
            Button::ArrowUp | Button::KeyW => {
                self.selected = (self.selected + rows.len() - 1) % rows.len().max(1);
            }
            Button::ArrowDown | Button::KeyS => {
                self.selected = (self.selected + 1) % rows.len().max(1);
            }
            Button::ArrowLeft | Button::KeyA => self.step(self.selected, -1, settings),
            Button::ArrowRight | Button::KeyD => self.step(self.selected, 1, settings),
            Button::Enter | Button::Space => self.activate(self.selected, settings),
            Button::KeyX => self.ask_delete(self.selected, settings),
            Button::Backspace if self.screen() == Some(&Screen::NewWorld) => {
                self.seed.pop();
            }
            Button::Backspace => self.back(),
            other if self.screen() == Some(&Screen::NewWorld) => {
                if let Some(digit) = digit_of(other) {
                    if self.seed.len() < 10 {
                        self.seed.push(digit);
                    }
                }
            }
            _ => {}
        }
    }

    /// A click on the drawn menu.
    pub fn click(&mut self, click: MenuClick, settings: &Settings) {
        match click {
            MenuClick::Row(row) => {
                self.selected = row;
                self.activate(row, settings);
            }
            MenuClick::Step(row, by) => {
                self.selected = row;
                self.step(row, by, settings);
            }
            MenuClick::Delete(row) => self.ask_delete(row, settings),
        }
    }

    /// A script's `menu` event ([the module's](self) words): `Err` says why it did nothing.
    pub fn choose(&mut self, choice: &str, settings: &Settings) -> Result<(), String> {
        match choice {
            "pause" | "open" => {
                self.open();
                return Ok(());
            }
            "resume" | "close" if self.is_open() => {
                self.close();
                return Ok(());
            }
            _ => {}
        }
        if !self.is_open() {
            return Err(format!(
                "`{choice}`: the menu is not open (`pause` opens it)"
            ));
        }
        if let Some((key, value)) = choice.split_once('=') {
            return self.set(key.trim(), value.trim(), settings);
        }
        let rows = self.rows(settings);
        if let Some(name) = choice.strip_prefix("delete:") {
            let row = rows
                .iter()
                .position(|row| row.id == format!("world:{name}"))
                .ok_or_else(|| format!("no world `{name}` to delete"))?;
            self.ask_delete(row, settings);
            return Ok(());
        }
        let row = rows
            .iter()
            .position(|row| row.id == choice)
            .ok_or_else(|| {
                let ids: Vec<&str> = rows.iter().map(|row| row.id.as_str()).collect();
                format!(
                    "no `{choice}` on this screen (its rows: {})",
                    ids.join(", ")
                )
            })?;
        self.selected = row;
        self.activate(row, settings);
        Ok(())
    }

    /// `KEY=VALUE`: a setting (as `settings.ron` writes its value) or the new world's seed.
    fn set(&mut self, key: &str, value: &str, settings: &Settings) -> Result<(), String> {
        if key == "seed" && self.screen() == Some(&Screen::NewWorld) {
            value
                .parse::<u32>()
                .map_err(|_| format!("seed `{value}` is not a whole number 0 to 4294967295"))?;
            self.seed = value.into();
            return Ok(());
        }
        if !SETTING_KEYS.contains(&key) {
            return Err(format!(
                "`{key}` is not a setting of the Settings screen ({})",
                SETTING_KEYS.join(", ")
            ));
        }
        let read = Settings::from_ron(&format!("({key}: {value})"), "menu")
            .map_err(|error| error.message)?;
        let mut changed = self.latest(settings);
        copy_setting(key, &read, &mut changed);
        if key == "view_radius" && changed.view_radius > self.most_view_radius.max(1) {
            return Err(format!(
                "a view radius of {} is more than this device can show: at most {}",
                changed.view_radius, self.most_view_radius
            ));
        }
        self.ask_settings(changed);
        Ok(())
    }

    /// Enter (or a click) on row `row`.
    fn activate(&mut self, row: usize, settings: &Settings) {
        let rows = self.rows(settings);
        let Some(chosen) = rows.get(row) else {
            return;
        };
        match (&chosen.kind, chosen.id.as_str()) {
            (RowKind::Setting(_), _) => self.step(row, 1, settings),
            (RowKind::Binding(action), _) => {
                self.rebinding = Some(*action);
                self.note = Some(format!(
                    "Press the new key or button for {} (Esc: cancel, Backspace: unbound)",
                    action.name().replace('_', " ")
                ));
            }
            (RowKind::Seed, _) => {}
            (_, "resume") => self.close(),
            (_, "settings") => self.push(Screen::Settings),
            (_, "worlds") => self.push(Screen::Worlds),
            (_, "save") => self.requests.push(MenuRequest::Save),
            (_, "load") => {
                self.requests.push(MenuRequest::Load);
                self.close();
            }
            (_, "quit") => self.requests.push(MenuRequest::Quit),
            (_, "back" | "no") => self.back(),
            (_, "new") => self.push(Screen::NewWorld),
            (_, "create") => match self.seed.parse::<u32>() {
                Ok(seed) => {
                    self.requests.push(MenuRequest::NewWorld(seed));
                    self.close();
                }
                Err(_) => self.note = Some("type a seed: a whole number up to 4294967295".into()),
            },
            (_, "yes") => {
                if let Some(Screen::ConfirmDelete(path, _)) = self.screen().cloned() {
                    self.requests.push(MenuRequest::DeleteWorld(path));
                    self.back();
                    self.requests.push(MenuRequest::ListWorlds);
                }
            }
            (_, id) => {
                if let Some(world) = id
                    .strip_prefix("world:")
                    .and_then(|name| self.worlds.iter().find(|world| world.name == name))
                {
                    if self.current_world.as_deref() == Some(world.path.as_path()) {
                        self.close();
                    } else {
                        self.requests
                            .push(MenuRequest::OpenWorld(world.path.clone()));
                        self.close();
                    }
                }
            }
        }
    }

    /// Asks before deleting the world of row `row` (not the one being played).
    fn ask_delete(&mut self, row: usize, settings: &Settings) {
        if self.screen() != Some(&Screen::Worlds) {
            return;
        }
        let rows = self.rows(settings);
        let Some(world) = rows
            .get(row)
            .and_then(|row| row.id.strip_prefix("world:"))
            .and_then(|name| self.worlds.iter().find(|world| world.name == name))
            .cloned()
        else {
            return;
        };
        if self.current_world.as_deref() == Some(world.path.as_path()) {
            self.note = Some(format!(
                "{} is being played: open another world to delete it",
                world.name
            ));
            return;
        }
        self.push(Screen::ConfirmDelete(world.path, world.name));
    }

    /// Left/Right (`by` −1 or +1) on row `row`: a setting one step down or up.
    fn step(&mut self, row: usize, by: i32, settings: &Settings) {
        let rows = self.rows(settings);
        let Some(RowKind::Setting(key)) = rows.get(row).map(|row| row.kind.clone()) else {
            return;
        };
        let mut changed = self.latest(settings);
        let by_f = by as f32;
        match key {
            "mouse_sensitivity" => {
                let stepped = (changed.mouse_sensitivity * 10.0).round() / 10.0 + 0.1 * by_f;
                changed.mouse_sensitivity = stepped
                    .clamp(0.1, *SENSITIVITY_RANGE.end())
                    .max(*SENSITIVITY_RANGE.start());
            }
            "invert_mouse_y" => changed.invert_mouse_y = !changed.invert_mouse_y,
            "fov_degrees" => {
                let stepped = (changed.fov_degrees / 5.0).round() * 5.0 + 5.0 * by_f;
                changed.fov_degrees =
                    stepped.clamp(*FIELD_OF_VIEW_RANGE.start(), *FIELD_OF_VIEW_RANGE.end());
            }
            "view_radius" => {
                let most = self.most_view_radius.max(1);
                let stepped = changed.view_radius as i64 + i64::from(by);
                changed.view_radius = stepped.clamp(1, i64::from(most)) as u32;
                if stepped > i64::from(most) {
                    self.note = Some(format!("this device shows at most {most} chunks"));
                }
            }
            "shadows" => {
                let at = Shadows::ALL
                    .iter()
                    .position(|&quality| quality == changed.shadows)
                    .unwrap_or(0) as i32;
                let count = Shadows::ALL.len() as i32;
                changed.shadows = Shadows::ALL[(at + by).rem_euclid(count) as usize];
            }
            "mesher" => changed.mesher = changed.mesher.other(),
            "hud_scale" => {
                let stepped = (changed.hud_scale * 10.0).round() / 10.0 + 0.1 * by_f;
                changed.hud_scale = stepped.clamp(*HUD_SCALE_RANGE.start(), *HUD_SCALE_RANGE.end());
            }
            "crosshair" => changed.crosshair = !changed.crosshair,
            "master_volume" => {
                changed.master_volume =
                    ((changed.master_volume * 10.0).round() / 10.0 + 0.1 * by_f).clamp(0.0, 1.0);
            }
            "effects_volume" => {
                changed.effects_volume =
                    ((changed.effects_volume * 10.0).round() / 10.0 + 0.1 * by_f).clamp(0.0, 1.0);
            }
            "camera_shake" => changed.camera_shake = !changed.camera_shake,
            "particles" => {
                // Halved or doubled, within 0 (off), 1024 … 65536.
                changed.particles = match (changed.particles, by > 0) {
                    (0, true) => 1024,
                    (0..=1024, false) => 0,
                    (count, true) => (count.saturating_mul(2)).min(65_536),
                    (count, false) => count / 2,
                };
            }
            "vsync" => changed.vsync = !changed.vsync,
            "fullscreen" => changed.fullscreen = !changed.fullscreen,
            _ => return,
        }
        if changed != self.latest(settings) {
            self.ask_settings(changed);
        }
    }

    /// The button pressed while `action` waits for its new one.
    fn rebind(&mut self, action: Action, button: Button, settings: &Settings) {
        let name = action.name().replace('_', " ");
        if button == Button::Escape {
            self.rebinding = None;
            self.note = None;
            return;
        }
        let mut changed = self.latest(settings);
        if button == Button::Backspace {
            for old in changed.bindings.buttons(action) {
                changed.bindings.unbind(old);
            }
            self.rebinding = None;
            self.note = Some(format!("{name} is unbound"));
            self.ask_settings(changed);
            return;
        }
        match changed.bindings.action(button) {
            Some(held) if held == action => {
                self.rebinding = None;
                self.note = None;
            }
            Some(held) => {
                // The clash is named; the player chooses another key or frees this one.
                self.note = Some(format!(
                    "{} is bound to {}: press another key, or rebind {} first",
                    button.label(),
                    held.name().replace('_', " "),
                    held.name().replace('_', " ")
                ));
            }
            None => {
                for old in changed.bindings.buttons(action) {
                    changed.bindings.unbind(old);
                }
                if changed.bindings.bind(button, action).is_ok() {
                    self.note = Some(format!("{name}: {}", button.label()));
                    self.ask_settings(changed);
                }
                self.rebinding = None;
            }
        }
    }

    /// A setting's value as the Settings screen shows it.
    fn setting_value(&self, key: &str, settings: &Settings) -> String {
        let on = |on: bool| if on { "on" } else { "off" }.to_owned();
        match key {
            "mouse_sensitivity" => format!("{:.1}×", settings.mouse_sensitivity),
            "invert_mouse_y" => on(settings.invert_mouse_y),
            "fov_degrees" => format!("{:.0}°", settings.fov_degrees),
            "view_radius" => format!(
                "{} chunks ({} m; this device: at most {})",
                settings.view_radius,
                settings.view_radius * 32,
                self.most_view_radius
            ),
            "shadows" => settings.shadows.name().into(),
            "mesher" => settings.mesher.label().into(),
            "hud_scale" => format!("{:.1}×", settings.hud_scale),
            "crosshair" => on(settings.crosshair),
            "vsync" => on(settings.vsync),
            "fullscreen" => on(settings.fullscreen),
            "master_volume" => format!("{:.0} %", settings.master_volume * 100.0),
            "effects_volume" => format!("{:.0} %", settings.effects_volume * 100.0),
            "camera_shake" => on(settings.camera_shake),
            "particles" => match settings.particles {
                0 => "off".to_owned(),
                count => format!("{count} at most"),
            },
            _ => String::new(),
        }
    }
}

/// A setting's name on the Settings screen.
fn setting_label(key: &str) -> &'static str {
    match key {
        "mouse_sensitivity" => "Mouse sensitivity",
        "invert_mouse_y" => "Invert mouse Y",
        "fov_degrees" => "Field of view",
        "view_radius" => "View radius",
        "shadows" => "Shadows",
        "mesher" => "Terrain mesher",
        "hud_scale" => "HUD scale",
        "crosshair" => "Crosshair",
        "vsync" => "Vsync",
        "fullscreen" => "Fullscreen",
        "master_volume" => "Volume",
        "effects_volume" => "Effects volume",
        "camera_shake" => "Camera shake",
        "particles" => "Dust and debris",
        _ => "?",
    }
}

/// Copies the setting `key` from `from` to `to`.
fn copy_setting(key: &str, from: &Settings, to: &mut Settings) {
    match key {
        "mouse_sensitivity" => to.mouse_sensitivity = from.mouse_sensitivity,
        "invert_mouse_y" => to.invert_mouse_y = from.invert_mouse_y,
        "fov_degrees" => to.fov_degrees = from.fov_degrees,
        "view_radius" => to.view_radius = from.view_radius,
        "shadows" => to.shadows = from.shadows,
        "mesher" => to.mesher = from.mesher,
        "hud_scale" => to.hud_scale = from.hud_scale,
        "crosshair" => to.crosshair = from.crosshair,
        "vsync" => to.vsync = from.vsync,
        "fullscreen" => to.fullscreen = from.fullscreen,
        "master_volume" => to.master_volume = from.master_volume,
        "effects_volume" => to.effects_volume = from.effects_volume,
        "camera_shake" => to.camera_shake = from.camera_shake,
        "particles" => to.particles = from.particles,
        _ => {}
    }
}

/// The digit a button types, if it is one.
fn digit_of(button: Button) -> Option<char> {
    let name = button.name();
    let digit = name
        .strip_prefix("Digit")
        .or_else(|| name.strip_prefix("Numpad"))?;
    (digit.len() == 1).then(|| digit.chars().next()).flatten()
}

/// A seed for a new world: from the clock, so each new world differs.
fn random_seed() -> u32 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mixed = since.as_nanos() as u64;
    (blockfall_physics::random::Rng::new(mixed).next_u64() >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn menu() -> Menu {
        Menu {
            most_view_radius: 16,
            ..Menu::default()
        }
    }

    #[test]
    fn escape_opens_the_pause_menu_and_its_rows_lead_to_the_screens() {
        let settings = Settings::default();
        let mut menu = menu();
        assert_eq!(menu.state(), None);
        menu.open();
        assert_eq!(menu.state(), Some("pause"));
        menu.key(Button::ArrowDown, &settings);
        menu.key(Button::Enter, &settings);
        assert_eq!(menu.state(), Some("settings"));
        menu.key(Button::Escape, &settings);
        assert_eq!(menu.state(), Some("pause"));
        assert_eq!(menu.selected, 1, "back on the row left");
        menu.choose("worlds", &settings).unwrap();
        assert_eq!(menu.state(), Some("worlds"));
        assert_eq!(menu.take_requests(), [MenuRequest::ListWorlds]);
        menu.key(Button::Escape, &settings);
        menu.key(Button::Escape, &settings);
        assert_eq!(menu.state(), None);
        assert_eq!(menu.take_requests(), [MenuRequest::Resume]);
        menu.open();
        menu.choose("quit", &settings).unwrap();
        assert_eq!(menu.take_requests(), [MenuRequest::Quit]);
        assert!(menu.choose("nowhere", &settings).is_err());
    }

    #[test]
    fn settings_step_within_their_ranges_and_are_asked_of_the_run() {
        let settings = Settings::default();
        let mut menu = menu();
        menu.open();
        menu.choose("settings", &settings).unwrap();
        menu.selected = 2; // field of view
        menu.key(Button::ArrowRight, &settings);
        let Some(MenuRequest::Settings(changed)) = menu.take_requests().pop() else {
            panic!("a settings change")
        };
        assert_eq!(changed.fov_degrees, settings.fov_degrees + 5.0);
        // The view radius stops at what the device holds, and says so.
        let most = Settings {
            view_radius: 16,
            ..Settings::default()
        };
        menu.selected = 3;
        menu.key(Button::ArrowRight, &most);
        assert!(menu.take_requests().is_empty());
        assert!(menu.note.as_deref().unwrap().contains("at most 16"));
        assert!(menu.choose("view_radius=17", &most).is_err());
        menu.choose("fov_degrees=100", &settings).unwrap();
        let Some(MenuRequest::Settings(changed)) = menu.take_requests().pop() else {
            panic!("a settings change")
        };
        assert_eq!(changed.fov_degrees, 100.0);
        assert!(menu.choose("fov_degrees=500", &settings).is_err());
        menu.choose("shadows=Low", &settings).unwrap();
        let Some(MenuRequest::Settings(changed)) = menu.take_requests().pop() else {
            panic!("a settings change")
        };
        assert_eq!(changed.shadows, Shadows::Low);
    }

    #[test]
    fn changes_in_one_frame_build_on_each_other() {
        let settings = Settings::default();
        let mut menu = menu();
        menu.open();
        menu.choose("settings", &settings).unwrap();
        menu.choose("view_radius=3", &settings).unwrap();
        menu.choose("mesher=MarchingCubes", &settings).unwrap();
        menu.choose("shadows=Off", &settings).unwrap();
        let Some(MenuRequest::Settings(last)) = menu.take_requests().pop() else {
            panic!("a settings change")
        };
        assert_eq!(last.view_radius, 3);
        assert_eq!(
            last.mesher,
            blockfall_engine::meshing::Mesher::MarchingCubes
        );
        assert_eq!(last.shadows, Shadows::Off);
        // Taken by the run: the next change starts from the player's settings it is given.
        menu.choose("fov_degrees=90", &settings).unwrap();
        let Some(MenuRequest::Settings(next)) = menu.take_requests().pop() else {
            panic!("a settings change")
        };
        assert_eq!(next.view_radius, settings.view_radius);
    }

    #[test]
    fn a_key_is_rebound_by_pressing_it_and_a_clash_is_named() {
        let settings = Settings::default();
        let mut menu = menu();
        menu.open();
        menu.choose("settings", &settings).unwrap();
        menu.choose("key:jump", &settings).unwrap();
        menu.key(Button::KeyW, &settings);
        assert!(menu.take_requests().is_empty(), "W is forward's");
        assert!(menu.note.as_deref().unwrap().contains("bound to forward"));
        menu.key(Button::KeyJ, &settings);
        let Some(MenuRequest::Settings(changed)) = menu.take_requests().pop() else {
            panic!("rebound")
        };
        assert_eq!(changed.bindings.buttons(Action::Jump), [Button::KeyJ]);
        assert_eq!(changed.bindings.action(Button::Space), None);
        // Escape cancels, and the next Escape goes back.
        menu.choose("key:fly", &changed).unwrap();
        menu.key(Button::Escape, &changed);
        assert!(menu.take_requests().is_empty());
        assert_eq!(menu.state(), Some("settings"));
    }

    #[test]
    fn a_new_world_takes_a_typed_seed_and_a_world_is_deleted_only_after_asking() {
        let settings = Settings::default();
        let mut menu = menu();
        menu.open();
        menu.choose("worlds", &settings).unwrap();
        let world = |name: &str| WorldEntry {
            name: name.into(),
            path: PathBuf::from(format!("/w/{name}.blockfall")),
            seed: Some(7),
            last_played: None,
            bytes: 2048,
        };
        menu.set_worlds(vec![world("a"), world("b")]);
        menu.current_world = Some(PathBuf::from("/w/a.blockfall"));
        menu.take_requests();
        menu.choose("delete:a", &settings).unwrap();
        assert!(menu.note.as_deref().unwrap().contains("being played"));
        menu.choose("delete:b", &settings).unwrap();
        assert_eq!(menu.state(), Some("worlds"));
        assert!(matches!(menu.screen(), Some(Screen::ConfirmDelete(..))));
        menu.key(Button::Enter, &settings); // "No" is first
        assert!(menu.take_requests().is_empty());
        menu.choose("delete:b", &settings).unwrap();
        menu.choose("yes", &settings).unwrap();
        assert_eq!(
            menu.take_requests(),
            [
                MenuRequest::DeleteWorld(PathBuf::from("/w/b.blockfall")),
                MenuRequest::ListWorlds
            ]
        );
        menu.choose("new", &settings).unwrap();
        for _ in 0..12 {
            menu.key(Button::Backspace, &settings);
        }
        for button in [Button::Digit4, Button::Numpad2] {
            menu.key(button, &settings);
        }
        menu.choose("create", &settings).unwrap();
        assert_eq!(
            menu.take_requests(),
            [MenuRequest::NewWorld(42), MenuRequest::Resume]
        );
        assert_eq!(menu.state(), None);
    }
}
