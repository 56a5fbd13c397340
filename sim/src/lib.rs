//! `ctm-sim`: cycle-counting simulators of the X1K (CTM device) and R700.
//!
//! Each machine decodes with its backend's `isa` module, so one definition
//! of every bit field serves the compiler and the simulator. The simulators
//! are models of the chips, not of ctm's compiler: they run any valid
//! program.
//!
//! - [`x1k`]: the CTM device (command processor, memory controller,
//!   conditional unit) and the X1K data-parallel processor array.
//! - [`r700`]: the R700 (RV770-class) chip: wavefronts, CF program and
//!   stack, ALU/fetch clauses, exports, a cycle model.

pub mod denormal;
pub mod r700;
pub mod repeat_log;
pub mod x1k;
