//! The menu's screens drawn over the frozen world: a dimmed picture, a panel at the centre
//! with the screen's title, its rows (a label and a value; the chosen row highlighted; < > on a
//! setting's row, Delete on a world's), a help line and a note. What to draw is the
//! application's [`MenuView`]; a click comes back as a [`MenuClick`].

use egui::{Align2, Color32, FontId, RichText};

use super::{HELP, MESSAGE, PANEL, TEXT};

/// The dimming over the world while the menu is open (premultiplied black).
pub const DIM: Color32 = Color32::from_rgba_premultiplied(0, 0, 0, 110);
/// The chosen row's background.
pub const CHOSEN: Color32 = Color32::from_rgb(58, 74, 104);
/// The menu's text size, in points.
pub const MENU_TEXT: f32 = 15.0;
/// The menu panel's widest, in points.
const MOST_WIDTH: f32 = 560.0;

/// A row of a menu screen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MenuRow {
    pub label: String,
    /// The setting's value, a world's summary.
    pub value: Option<String>,
    /// The row chosen by the keys.
    pub selected: bool,
    /// A setting stepped by < >.
    pub steps: bool,
    /// A world that may be deleted.
    pub deletable: bool,
}

/// A menu screen as the HUD draws it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MenuView {
    pub title: String,
    pub rows: Vec<MenuRow>,
    /// The keys of the screen.
    pub help: String,
    /// A line under the rows (a clash named, a refusal).
    pub note: Option<String>,
}

/// A click on the drawn menu.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MenuClick {
    /// The row, activated.
    Row(usize),
    /// The row's value one step down (−1) or up (+1).
    Step(usize, i32),
    /// The row's delete button.
    Delete(usize),
}

/// Draws `menu` over the whole screen; returns what was clicked.
pub(super) fn draw(ctx: &egui::Context, menu: &MenuView) -> Option<MenuClick> {
    let screen = ctx.viewport_rect();
    ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::new("menu dim"),
    ))
    .rect_filled(screen, 0.0, DIM);
    let width = (screen.width() - 16.0).clamp(0.0, MOST_WIDTH);
    let mut clicked = None;
    egui::Area::new(egui::Id::new("menu"))
        .order(egui::Order::Foreground)
        .anchor(Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .constrain(true)
        .fade_in(false)
        .show(ctx, |ui| {
            egui::Frame::NONE
                .fill(PANEL)
                .corner_radius(6.0)
                .inner_margin(12.0)
                .show(ui, |ui| {
                    ui.set_width(width - 24.0);
                    ui.spacing_mut().item_spacing.y = 3.0;
                    let text = |text: &str, size: f32, colour: Color32| {
                        RichText::new(text)
                            .font(FontId::proportional(size))
                            .color(colour)
                    };
                    ui.label(text(&menu.title, MENU_TEXT * 1.4, TEXT));
                    ui.add_space(4.0);
                    let most_height = (screen.height() - 140.0).max(60.0);
                    egui::ScrollArea::vertical()
                        .max_height(most_height)
                        .auto_shrink([false, true])
                        .show(ui, |ui| {
                            for (index, row) in menu.rows.iter().enumerate() {
                                if let Some(click) = draw_row(ui, index, row) {
                                    clicked = Some(click);
                                }
                            }
                        });
                    ui.add_space(4.0);
                    if let Some(note) = &menu.note {
                        ui.add(egui::Label::new(text(note, MENU_TEXT, MESSAGE)).wrap());
                    }
                    ui.add(egui::Label::new(text(&menu.help, MENU_TEXT * 0.8, HELP)).wrap());
                });
        });
    clicked
}

/// One row: its label (a button), its value, < > or Delete.
fn draw_row(ui: &mut egui::Ui, index: usize, row: &MenuRow) -> Option<MenuClick> {
    let mut clicked = None;
    let fill = if row.selected {
        CHOSEN
    } else {
        Color32::TRANSPARENT
    };
    let inner = egui::Frame::NONE
        .fill(fill)
        .corner_radius(3.0)
        .inner_margin(egui::Margin::symmetric(6, 2))
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                let label = egui::Label::new(
                    RichText::new(&row.label)
                        .font(FontId::proportional(MENU_TEXT))
                        .color(TEXT),
                )
                .sense(egui::Sense::click());
                if ui.add(label).clicked() {
                    clicked = Some(MenuClick::Row(index));
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if row.deletable && ui.small_button("Delete").clicked() {
                        clicked = Some(MenuClick::Delete(index));
                    }
                    if row.steps && ui.small_button(">").clicked() {
                        clicked = Some(MenuClick::Step(index, 1));
                    }
                    if let Some(value) = &row.value {
                        ui.label(
                            RichText::new(value)
                                .font(FontId::proportional(MENU_TEXT * 0.9))
                                .color(HELP),
                        );
                    }
                    if row.steps && ui.small_button("<").clicked() {
                        clicked = Some(MenuClick::Step(index, -1));
                    }
                });
            });
        });
    if row.selected {
        inner.response.scroll_to_me(None);
    }
    clicked
}
