//! `ctm`: the driver API (`compile`, `simulate`) and the `ctmc` binary.
