//! A smoke test of the processor array: the r0 ABI and a copy.

mod x1k_dpp_common;
use x1k_dpp_common::*;

#[test]
fn r0_abi_and_copy() {
    let prog = program(&out_reg(0), Mode::Partial);
    let run = run(&prog, &[(3, 4), (5, 6)], &Default::default()).unwrap();
    assert_eq!(target(&run.results[0], 0), [3.0, 4.0, 0.0, 0.0]);
    assert_eq!(target(&run.results[1], 0), [5.0, 6.0, 0.0, 0.0]);
    println!("{}", serde_json::to_string_pretty(&run.stats).unwrap());
}
