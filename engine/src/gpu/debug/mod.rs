//! Debug names, labels and the validation canary.
//!
//! RenderDoc and the validation layer both read the names and labels set here, so a capture shows
//! "scene pass / cube vertices" instead of "Buffer 0x5623…". Every message of the validation layer
//! goes to `log` with the names of the objects it is about, and errors are counted in the
//! [`ValidationCanary`]; tests assert the count stays 0, and one test breaks a rule on purpose to
//! prove the count can move.
//!
//! Two halves: `validation`, the instance's (the messenger's callback and the canary), and
//! `names`, the device's ([`Device::set_name`](super::Device::set_name), the labels and their
//! colours).

mod names;
mod validation;

pub use names::label_colour;
pub(crate) use validation::messenger_callback;
pub use validation::ValidationCanary;
