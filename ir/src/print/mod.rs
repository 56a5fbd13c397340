//! Printers: readable text (`ctmc --emit ir`) and Graphviz
//! (`ctmc --emit dot`).

mod dot;
mod text;

pub use dot::to_dot;
pub use text::to_text;
