//! Launch constants ([`crate::launch`]): each names a hidden float value
//! uniform of the module that no other launch constant names, every hidden
//! parameter has one, and each expression reads only the kernel's own
//! uniforms and survives its text form (what the backends store for the
//! loader).

use super::Report;
use crate::graph::Module;
use crate::launch::{LaunchExpr, is_hidden_name};
use crate::op::ParamInfo;

pub(super) fn check(m: &Module, report: &mut Report) {
    let mut named = vec![false; m.params.len()];
    for (k, c) in m.launch_constants.iter().enumerate() {
        let at = format!("launch constant {k}");
        let Some(p) = m.params.get(c.param.index()) else {
            report.error(
                &at,
                format!("names parameter {}, which does not exist", c.param),
            );
            continue;
        };
        if !is_hidden_name(&p.name) {
            report.error(
                &at,
                format!("names `{}`, which is not a hidden parameter", p.name),
            );
        }
        if !matches!(p.info, ParamInfo::Uniform(t) if t.is_float()) {
            report.error(&at, format!("`{}` is not a float value uniform", p.name));
        }
        if std::mem::replace(&mut named[c.param.index()], true) {
            report.error(
                &at,
                format!("`{}` is named by two launch constants", p.name),
            );
        }
        if c.expr.nodes.is_empty() {
            report.error(&at, "has an empty expression");
        }
        for u in c.expr.uniforms() {
            let ok = m.params.iter().any(|q| {
                q.name == u
                    && !is_hidden_name(&q.name)
                    && matches!(q.info, ParamInfo::Uniform(_) | ParamInfo::Array(..))
            });
            if !ok {
                report.error(
                    &at,
                    format!("reads `{u}`, which is not a uniform of the kernel"),
                );
            }
        }
        // Compared as text, which keeps constants' bit patterns (a NaN
        // constant is not equal to itself as a value).
        let text = c.expr.to_text();
        if LaunchExpr::parse(&text).map(|e| e.to_text()).as_ref() != Ok(&text) {
            report.error(&at, format!("does not survive its text form: {text}"));
        }
    }
    for (i, p) in m.params.iter().enumerate() {
        if is_hidden_name(&p.name) && !named[i] {
            report.error(
                format!("p{i}"),
                format!("hidden parameter `{}` has no launch constant", p.name),
            );
        }
    }
}
