//! `ctm-sim`: cycle-counting simulators of the X1K (CTM device) and R700.
//!
//! It will own both machines' functional and cycle models, the memory
//! formats, statistics and traces. It decodes with the backends' `isa`
//! modules so that one definition of every bit field serves everyone.
