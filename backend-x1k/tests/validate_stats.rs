//! Static metrics (`--emit stats`, `shared/spec/language.md` §9) of
//! hand-written programs.

mod validate_common;

use ctm_backend_x1k::stats::{StaticMetrics, static_metrics};
use validate_common::{full, prog};

#[test]
fn straight_line_program() {
    let p = prog(
        "  0: tex r1.rgba = ld(t0, r0.rgaa) acquire sem_wait
           1: alu r2.rgb = mad(s0.rgb, s1.rgb, s2.rgb) ; r2.a = rcp(s0.a) ; s0=r1 s1=c0 s2=c3 sem_wait
           2: alu r3.rgb = dp3(s0.rgb, s1.rgb) ; r3.a = dp(s0.a, s0.a) ; s0=r2 s1=c0
           3: alu r4.rgb = sop() ; r4.a = ex2(s0.a) ; s0=r3
           4: alu r5.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r4
           5: out o0.rgb = max(s0.rgb, s0.rgb) ; o0.a = max(s0.a, s0.a) ; s0=r5|r4 sem_wait",
    );
    let m = static_metrics(&p);
    assert_eq!(
        m,
        StaticMetrics {
            instructions: 6,
            alu: 5,
            tex: 1,
            fc: 0,
            // 1: mad + rcp; 2: dp3 copied by dp; 3: ex2 copied by sop; 5: rgb + a outputs.
            coissued: 4,
            temps: 6,
            consts: 2,
        }
    );
    assert_eq!(
        m.to_json(),
        r#"{"instructions":6,"alu":5,"tex":1,"fc":0,"coissued":4,"temps":6,"consts":2}"#
    );
}

#[test]
fn flow_control_program() {
    let p = full(
        "  0: fc loop 4 func=never int=i0 sem_wait
           1: alu r[2+aL].rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c[10+aL]
           2: alu r1.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=c9 alu_result=r<0
           3: fc endloop 1 func=always jump_any int=i0 sem_wait
           4: out o0.rgb = max(s0.rgb, s0.rgb) ; _ ; s0=r1 sem_wait",
    );
    let m = static_metrics(&p);
    assert_eq!((m.instructions, m.alu, m.tex, m.fc), (5, 3, 0, 2));
    // The ALU result comes from the RGB unit: not a co-issue.
    assert_eq!(m.coissued, 0);
    assert_eq!(m.temps, 3);
    // c9, and c[10+aL] reaching c10..c255 (no binding bounds it).
    assert_eq!(m.consts, 1 + 246);
}

#[test]
fn empty_program() {
    let m = static_metrics(&prog(""));
    assert_eq!(m, StaticMetrics::default());
    assert_eq!(
        m.to_json(),
        r#"{"instructions":0,"alu":0,"tex":0,"fc":0,"coissued":0,"temps":0,"consts":0}"#
    );
}
