//! Launch builders and output rendering: pixel-shader launches per the ABI
//! (position (i, j, 0, 0) in R0, uniforms in constant buffer 0), raw runs
//! (spec §10: N elements, initial registers incl. `seq`, cb0 constants,
//! also visible as the constant file) and the raw-run JSON
//! `{"outputs": [{"kind", "index", "values"}]}`.

use ctm_backend_r700::isa::{Gpr, Program};
use serde_json::{Value, json};

use super::{ExportKind, Launch, RunResult};

/// An initial register value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegInit {
    /// The same four dwords in every element.
    Const([u32; 4]),
    /// `seq`: (k, 0, 0, 0) with k the element number as a float.
    Seq,
    /// One value per element (elements past the end get zeros).
    PerElement(Vec<[u32; 4]>),
}

impl RegInit {
    /// The value for element `e`.
    pub fn value(&self, e: u64) -> [u32; 4] {
        match self {
            RegInit::Const(v) => *v,
            RegInit::Seq => [(e as f32).to_bits(), 0, 0, 0],
            RegInit::PerElement(v) => v.get(e as usize).copied().unwrap_or([0; 4]),
        }
    }
}

impl Launch {
    /// A pixel-shader launch over `width × height` with the position in R0
    /// (the ABI, `docs/abi-r700.md`).
    pub fn pixel_shader(program: Program, width: u32, height: u32) -> Launch {
        Launch {
            position: Some(Gpr::R0),
            ..Launch::new(program, width, height)
        }
    }

    /// A raw run (spec §10): `elements` elements in one row, the given
    /// registers, and `consts` as cb0 elements (also the constant file).
    pub fn raw(
        program: Program,
        elements: u32,
        regs: Vec<(Gpr, RegInit)>,
        consts: &[(u32, [u32; 4])],
    ) -> Launch {
        let mut launch = Launch::new(program, elements, 1);
        launch.regs = regs;
        let n = consts
            .iter()
            .map(|(i, _)| *i as usize + 1)
            .max()
            .unwrap_or(0);
        let mut cb0 = vec![[0u32; 4]; n];
        for &(i, v) in consts {
            cb0[i as usize] = v;
        }
        launch.cfile = cb0.iter().take(256).copied().collect();
        launch.const_buffers = vec![cb0];
        launch
    }

    /// Set cb0 element `n` (a uniform slot).
    pub fn set_uniform(&mut self, n: u32, value: [u32; 4]) {
        if self.const_buffers.is_empty() {
            self.const_buffers.push(Vec::new());
        }
        let cb0 = &mut self.const_buffers[0];
        if cb0.len() <= n as usize {
            cb0.resize(n as usize + 1, [0; 4]);
        }
        cb0[n as usize] = value;
    }
}

fn f32_json(bits: u32) -> Value {
    let x = f32::from_bits(bits);
    if x.is_finite() {
        json!(x)
    } else {
        // JSON has no NaN/inf: spell them.
        json!(if x.is_nan() {
            "nan"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        })
    }
}

/// The raw-run JSON (spec §10): every export target by kind and index,
/// one `[x, y, z, w]` per element (zeros where the element exported
/// nothing), then global memory (kind `memory`, index 0, as four-dword
/// rows) if any memory export ran.
pub fn raw_outputs_json(result: &RunResult) -> Value {
    let mut outputs = Vec::new();
    for ((kind, index), values) in &result.exports {
        let rows: Vec<Value> = values
            .iter()
            .map(|v| Value::Array(v.unwrap_or([0; 4]).iter().map(|&b| f32_json(b)).collect()))
            .collect();
        outputs.push(json!({"kind": kind.name(), "index": index, "values": rows}));
    }
    if result.memory_written {
        let rows: Vec<Value> = result
            .memory
            .chunks(4)
            .map(|c| {
                let mut v = [0u32; 4];
                v[..c.len()].copy_from_slice(c);
                Value::Array(v.iter().map(|&b| f32_json(b)).collect())
            })
            .collect();
        outputs.push(json!({"kind": "memory", "index": 0, "values": rows}));
    }
    json!({ "outputs": outputs })
}

/// The pixel export `index` as f32 rows (zeros where nothing was exported).
pub fn pixel_f32(result: &RunResult, index: u32) -> Vec<[f32; 4]> {
    result.export_f32(ExportKind::Pixel, index)
}
