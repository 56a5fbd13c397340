//! What `ctmc` prints: diagnostics, output previews, `--check` results and
//! statistics.

use super::Console;
use ctm::compare::Mismatch;
use ctm::simulate::OutputShape;
use ctm::{CheckReport, RunOutput};
use ctm_frontend::diag::{self, Diagnostic};

/// Elements of an output printed when it is not written to a file.
pub const PREVIEW_ELEMENTS: usize = 8;

/// Mismatches listed per output when `--check` fails.
pub const LISTED_MISMATCHES: usize = 10;

/// Renders diagnostics against the source to standard error.
pub fn diagnostics(console: &Console, diags: &[Diagnostic], file_name: &str, source: &str) {
    if diags.is_empty() {
        return;
    }
    // Each diagnostic once (issue 12: a warning was printed twice), even
    // where the front end's sort left equal ones apart.
    let mut once: Vec<Diagnostic> = Vec::with_capacity(diags.len());
    for d in diags {
        if !once.contains(d) {
            once.push(d.clone());
        }
    }
    console.err_text(&diag::render(&once, file_name, source, console.color()));
}

/// A diagnostic that has no place in the source (the entry-point choice):
/// its one-line form and its help.
pub fn plain_diagnostic(console: &Console, d: &Diagnostic) {
    let mut text = format!("{d}\n");
    if let Some(help) = &d.help {
        text.push_str(&format!("  = help: {help}\n"));
    }
    console.err_text(&text);
}

/// A float as Rust's `Debug` writes it: `1.0`, `0.1`, `NaN`, `inf`.
fn float(x: f32) -> String {
    format!("{x:?}")
}

fn element(values: &[f32]) -> String {
    match values {
        [x] => float(*x),
        lanes => format!(
            "({})",
            lanes
                .iter()
                .map(|&x| float(x))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// One output's preview line: `r (256x256 f32): [0.5, 1.25, …]`, or for a
/// reduction `sum (f32): 1234.5`.
pub fn preview(output: &RunOutput) -> String {
    let values = output.values();
    let c = output.data.channels.max(1);
    match output.shape {
        OutputShape::Value => format!(
            "{} ({}): {}",
            output.name,
            output.type_name(),
            element(&values)
        ),
        OutputShape::Stream => {
            let n = output.data.len();
            let shown: Vec<String> = values
                .chunks(c)
                .take(PREVIEW_ELEMENTS)
                .map(element)
                .collect();
            let more = if n > PREVIEW_ELEMENTS { ", …" } else { "" };
            format!(
                "{} ({}x{} {}): [{}{more}]",
                output.name,
                output.data.width,
                output.data.height,
                output.type_name(),
                shown.join(", ")
            )
        }
    }
}

/// Prints a `--check` result: a summary on success (stdout), the first
/// mismatches of every output on failure (stderr).
pub fn check(console: &mut Console, report: &CheckReport) {
    let outputs = report.outputs.len();
    if report.passed() {
        console.out_line(&format!(
            "check passed: {outputs} output(s) match the reference within tolerance {:e}",
            report.tolerance
        ));
        for o in report
            .outputs
            .iter()
            .filter(|o| o.arithmetic_differences > 0)
        {
            console.out_line(&format!(
                "  `{}`: {} of {} values differ from the reference only by the target's \
                 arithmetic (fused multiply-adds, reciprocal division): the optimised IR \
                 matches the reference, and the machine matches that IR run with the \
                 target's arithmetic (docs/cli.md, --check)",
                o.name, o.arithmetic_differences, o.values_compared
            ));
        }
        return;
    }
    let mut text = String::new();
    for o in report.outputs.iter().filter(|o| !o.mismatches.is_empty()) {
        let shape = o
            .mismatches
            .iter()
            .find(|m| matches!(m, Mismatch::Shape { .. }));
        match shape {
            Some(m) => text.push_str(&format!("  `{}`: {m}\n", o.name)),
            None => {
                text.push_str(&format!(
                    "  `{}`: {} of {} values differ\n",
                    o.name,
                    o.mismatches.len(),
                    o.values_compared
                ));
                for m in o.mismatches.iter().take(LISTED_MISMATCHES) {
                    text.push_str(&format!("    {}{m}\n", o.name));
                }
                if o.mismatches.len() > LISTED_MISMATCHES {
                    text.push_str(&format!(
                        "    … and {} more\n",
                        o.mismatches.len() - LISTED_MISMATCHES
                    ));
                }
            }
        }
    }
    console.error(&format!(
        "--check failed: outputs differ from the reference beyond tolerance {:e}",
        report.tolerance
    ));
    console.err_text(&text);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctm_frontend::data::{StreamBuffer, StreamData};

    fn output(shape: OutputShape, w: usize, h: usize, c: usize, v: Vec<f32>) -> RunOutput {
        RunOutput {
            name: "r".into(),
            shape,
            data: StreamData {
                width: w,
                height: h,
                channels: c,
                buffer: StreamBuffer::F32(v),
            },
        }
    }

    #[test]
    fn previews() {
        let o = output(OutputShape::Stream, 3, 1, 1, vec![0.5, 1.25, f32::NAN]);
        assert_eq!(preview(&o), "r (3x1 f32): [0.5, 1.25, NaN]");
        let o = output(OutputShape::Stream, 16, 16, 1, vec![1.0; 256]);
        assert_eq!(
            preview(&o),
            "r (16x16 f32): [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, …]"
        );
        let o = output(OutputShape::Stream, 1, 1, 2, vec![1.0, -2.0]);
        assert_eq!(preview(&o), "r (1x1 vec2): [(1.0, -2.0)]");
        let o = output(OutputShape::Value, 1, 1, 1, vec![1234.5]);
        assert_eq!(preview(&o), "r (f32): 1234.5");
        let o = output(OutputShape::Value, 1, 1, 4, vec![1.0, 2.0, 3.0, 4.0]);
        assert_eq!(preview(&o), "r (vec4): (1.0, 2.0, 3.0, 4.0)");
    }
}
