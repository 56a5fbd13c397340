//! LLVM-compiled pixel shaders (`llc -march=r600 -mcpu=rv770`, committed
//! `.text` bytes) run on the simulator; their exports match a formula of
//! their inputs.

mod r700_common;

use r700_common::*;

#[test]
fn flow_loop_matches_its_source() {
    // flow_loop.ll: acc = x > 0 ? sin(x) : 1/x; loop i in 0..n { acc *= 1.5;
    // if acc < -3 break }; export (acc, b.yzw).
    let p = fixture("flow_loop");
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut want = Vec::new();
    for k in 0..100u32 {
        let x = (k as f32 - 50.0) * 0.07;
        let n = (k % 7) as f32;
        a.push(v4(x, n, 0.0, 0.0));
        b.push(v4(9.0, k as f32, 2.0, -1.0));
        let mut acc = if x > 0.0 { x.sin() } else { 1.0 / x };
        let mut i = 0;
        while i < n as i32 {
            let acc2 = acc * 1.5;
            i += 1;
            acc = acc2;
            if acc2 < -3.0 {
                break;
            }
        }
        want.push([acc, k as f32, 2.0, -1.0]);
    }
    let r = run_raw(p, 100, vec![(0, a), (1, b)], &[]);
    assert_eq!(r.faults, vec![]);
    let got = pixels(&r, 0);
    assert_eq!(got.len(), 100);
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        for c in 0..4 {
            assert!(
                close(g[c], w[c], 2e-3),
                "element {k} chan {c}: got {g:?}, want {w:?}"
            );
        }
    }
}
