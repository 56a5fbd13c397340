//! The R700 code generator (work in progress).
