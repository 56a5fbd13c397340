//! Reductions (spec §8) become a *pass kernel* that combines up to four
//! elements of its input into each element of its output; the runtime runs
//! passes until one element is left.
//!
//! Each pass maps a W×H grid to ceil(W/bw)×ceil(H/bh) with blocks (bw, bh)
//! of (2, 2) when both sides exceed 1, (4, 1) for a single row and (1, 4)
//! for a single column (see `docs/language-decisions.md`). Output element
//! (i, j) reads the block's elements e0..e3 at `(i, j) * (bw, bh) +
//! offset_k` and combines the existing ones as `f(f(e0, e1), f(e2, e3))`,
//! exactly as the reference interpreter does:
//!
//! ```text
//! a = valid1 ? f(e0, e1) : e0
//! b = valid3 ? f(e2, e3) : e2
//! r = valid2 ? f(a, b) : a
//! ```
//!
//! That guarded form serves any body. When the body's structure shows it
//! needs no guard ([`super::reduction_edges`]), the kernel reads and
//! combines the four elements unconditionally, `r = f(f(e0, e1), f(e2,
//! e3))`: a `min`/`max` body because clamped reads repeat an existing
//! element, a `+`/`*` body because the loader pads its input with the
//! identity ([`Module::input_padding`], [`PassLayout::pad_input`]).
//!
//! The pass kernel's parameters are `block: vec4` = (bw, bh, W, H),
//! `offsets01: vec4` = (dx0, dy0, dx1, dy1), `offsets23: vec4`, the input
//! stream and the output stream; [`pass_layout`] gives their values for a
//! pass (an unguarded kernel reads only `block.xy`).

use super::reduction_edges::pass_edges;
use super::{Cx, Env, Lowerer};
use crate::graph::{Module, Param};
use crate::op::{BinOp, CmpOp, Op, ParamInfo};
use crate::types::Ty;
use ctm_frontend::data::{StreamBuffer, StreamData};
use ctm_frontend::tast::{ParamId, ParamKind, Program, Reduction, Swizzle};
use ctm_frontend::types::{OutputType, StreamType, Type};
use ctm_frontend::value::Value as Constant;

/// The domain and hidden uniforms of one reduction pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PassLayout {
    /// The pass's output domain (width, height).
    pub domain: (usize, usize),
    /// The block (bw, bh) each output element combines.
    pub block: (usize, usize),
    /// The values of the `block`, `offsets01` and `offsets23` uniforms.
    pub uniforms: [[f32; 4]; 3],
}

/// The layout of the pass that reduces a `width`×`height` grid, or `None`
/// when the grid has one element (or none) left.
pub fn pass_layout(width: usize, height: usize) -> Option<PassLayout> {
    if width * height <= 1 {
        return None;
    }
    let (bw, bh, offsets): (usize, usize, [(f32, f32); 4]) = if width > 1 && height > 1 {
        (2, 2, [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)])
    } else if height == 1 {
        (4, 1, [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (3.0, 0.0)])
    } else {
        (1, 4, [(0.0, 0.0), (0.0, 1.0), (0.0, 2.0), (0.0, 3.0)])
    };
    Some(PassLayout {
        domain: (width.div_ceil(bw), height.div_ceil(bh)),
        block: (bw, bh),
        uniforms: [
            [bw as f32, bh as f32, width as f32, height as f32],
            [offsets[0].0, offsets[0].1, offsets[1].0, offsets[1].1],
            [offsets[2].0, offsets[2].1, offsets[3].0, offsets[3].1],
        ],
    })
}

impl PassLayout {
    /// `input` (the grid this pass reduces) padded on the right and at the
    /// bottom to a whole number of blocks with `value` (per channel; bytes
    /// of `unorm8x4` as `round(255 v)`, `u16` as `round(v)`, both
    /// saturated), or `None` when it already is whole. This is how the
    /// loader gives an unguarded pass kernel with
    /// [`Module::input_padding`] the identity for reads past the edge.
    pub fn pad_input(&self, input: &StreamData, value: [f32; 4]) -> Option<StreamData> {
        let (bw, bh) = self.block;
        let (width, height) = (
            input.width.div_ceil(bw) * bw,
            input.height.div_ceil(bh) * bh,
        );
        if (width, height) == (input.width, input.height) {
            return None;
        }
        let c = input.channels;
        fn pad<T: Copy>(
            data: &[T],
            from: (usize, usize),
            to: (usize, usize),
            fill: &[T],
        ) -> Vec<T> {
            let c = fill.len();
            let mut out = Vec::with_capacity(to.0 * to.1 * c);
            for j in 0..to.1 {
                for i in 0..to.0 {
                    if i < from.0 && j < from.1 {
                        let at = (j * from.0 + i) * c;
                        out.extend_from_slice(data.get(at..at + c).unwrap_or(fill));
                    } else {
                        out.extend_from_slice(fill);
                    }
                }
            }
            out
        }
        let from = (input.width, input.height);
        let to = (width, height);
        let buffer = match &input.buffer {
            StreamBuffer::F32(v) => StreamBuffer::F32(pad(v, from, to, &value[..c])),
            StreamBuffer::U8(v) => {
                let fill: Vec<u8> = value[..c]
                    .iter()
                    .map(|x| (x * 255.0).round().clamp(0.0, 255.0) as u8)
                    .collect();
                StreamBuffer::U8(pad(v, from, to, &fill))
            }
            StreamBuffer::U16(v) => {
                let fill: Vec<u16> = value[..c]
                    .iter()
                    .map(|x| x.round().clamp(0.0, 65535.0) as u16)
                    .collect();
                StreamBuffer::U16(pad(v, from, to, &fill))
            }
        };
        Some(StreamData {
            width,
            height,
            channels: c,
            buffer,
        })
    }
}

/// The pass kernel of `reduction`, reading an input stream of type
/// `input` (the first pass reads the user's stream; later passes read the
/// previous pass's `f32`/`vec2`/`vec4` output).
/// Runs on a deep stack, like [`super::lower_kernel`].
pub fn lower_reduction_pass(program: &Program, reduction: &Reduction, input: StreamType) -> Module {
    super::on_deep_stack(|| lower_pass_here(program, reduction, input))
}

fn lower_pass_here(program: &Program, reduction: &Reduction, input: StreamType) -> Module {
    let ty = Ty::from_type(reduction.ty).unwrap_or(Ty::F32);
    let out = match reduction.ty {
        Type::Vec2 => OutputType::Vec2,
        Type::Vec4 => OutputType::Vec4,
        _ => OutputType::F32,
    };
    let vec4 = |name: &str| Param {
        name: name.to_string(),
        info: ParamInfo::Uniform(Ty::Float(4)),
        kind: ParamKind::Uniform(Type::Vec4),
    };
    let params = vec![
        vec4("block"),
        vec4("offsets01"),
        vec4("offsets23"),
        Param {
            name: "src".to_string(),
            info: ParamInfo::Input(ty),
            kind: ParamKind::Input(input),
        },
        Param {
            name: reduction.name.clone(),
            info: ParamInfo::Output(ty),
            kind: ParamKind::Output(out),
        },
    ];
    let mut l = Lowerer::new(
        program,
        Module::new(format!("{}_pass", reduction.name), params),
    );
    let root = l.m.root;
    let mut cx = Cx {
        region: root,
        env: Env::default(),
    };
    let sw = |l: &mut Lowerer, cx: &mut Cx, v, lanes: &[u8]| {
        l.op(cx, Op::Swizzle(Swizzle::new(lanes)), &[v])
    };
    let index = l.op(&mut cx, Op::Index, &[]);
    let block = l.op(&mut cx, Op::Uniform(ParamId(0)), &[]);
    let scale = sw(&mut l, &mut cx, block, &[0, 1]);
    let size = sw(&mut l, &mut cx, block, &[2, 3]);
    let base = l.op(&mut cx, Op::Binary(BinOp::FMul), &[index, scale]);
    let o01 = l.op(&mut cx, Op::Uniform(ParamId(1)), &[]);
    let o23 = l.op(&mut cx, Op::Uniform(ParamId(2)), &[]);
    let offsets = [
        sw(&mut l, &mut cx, o01, &[0, 1]),
        sw(&mut l, &mut cx, o01, &[2, 3]),
        sw(&mut l, &mut cx, o23, &[0, 1]),
        sw(&mut l, &mut cx, o23, &[2, 3]),
    ];
    let size_x = sw(&mut l, &mut cx, size, &[0]);
    let size_y = sw(&mut l, &mut cx, size, &[1]);
    let edges = pass_edges(reduction);
    l.m.input_padding = edges.padding();
    let mut elems = Vec::new();
    let mut valid = Vec::new();
    for off in offsets {
        let p = l.op(&mut cx, Op::Binary(BinOp::FAdd), &[base, off]);
        elems.push(l.op(&mut cx, Op::Gather(ParamId(3)), &[p]));
        if !edges.guarded() {
            continue;
        }
        let px = sw(&mut l, &mut cx, p, &[0]);
        let py = sw(&mut l, &mut cx, p, &[1]);
        let in_x = l.op(&mut cx, Op::Compare(CmpOp::Lt), &[px, size_x]);
        let in_y = l.op(&mut cx, Op::Compare(CmpOp::Lt), &[py, size_y]);
        valid.push(l.op(&mut cx, Op::Binary(BinOp::BAnd), &[in_x, in_y]));
    }
    let combine = |l: &mut Lowerer, cx: &mut Cx, a, b| {
        l.inline(
            cx,
            &reduction.params,
            &reduction.locals,
            &reduction.body,
            reduction.ty,
            &[a, b],
        )
    };
    let f01 = combine(&mut l, &mut cx, elems[0], elems[1]);
    let f23 = combine(&mut l, &mut cx, elems[2], elems[3]);
    let r = if let [_, v1, v2, v3] = valid[..] {
        let a = l.op(&mut cx, Op::Select, &[v1, f01, elems[0]]);
        let b = l.op(&mut cx, Op::Select, &[v3, f23, elems[2]]);
        let fab = combine(&mut l, &mut cx, a, b);
        l.op(&mut cx, Op::Select, &[v2, fab, a])
    } else {
        combine(&mut l, &mut cx, f01, f23)
    };
    l.m.add_result(root, r);
    let f = l.constant(&mut cx, Constant::Bool(false));
    l.m.add_result(root, f);
    let s = l.m.argument(root, 0);
    l.m.add_result(root, s);
    l.m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_fills_whole_blocks_with_the_value() {
        let input = StreamData {
            width: 5,
            height: 3,
            channels: 2,
            buffer: StreamBuffer::F32((0..30).map(|k| k as f32).collect()),
        };
        let layout = pass_layout(5, 3).expect("a pass");
        let padded = layout
            .pad_input(&input, [7.0, 8.0, 0.0, 0.0])
            .expect("padded");
        assert_eq!((padded.width, padded.height, padded.channels), (6, 4, 2));
        for j in 0..4 {
            for i in 0..6 {
                let want = if i < 5 && j < 3 {
                    input.read(i, j)
                } else {
                    [7.0, 8.0, 0.0, 0.0]
                };
                assert_eq!(padded.read(i, j), want, "({i}, {j})");
            }
        }
        // Whole blocks already: nothing to do.
        let even = StreamData::zeros(4, 2, 1);
        assert!(
            pass_layout(4, 2)
                .and_then(|l| l.pad_input(&even, [1.0; 4]))
                .is_none()
        );
        // A row pads to a multiple of 4; bytes of unorm8x4 as 255 v.
        let row = StreamData {
            width: 5,
            height: 1,
            channels: 4,
            buffer: StreamBuffer::U8(vec![9; 20]),
        };
        let padded = pass_layout(5, 1)
            .and_then(|l| l.pad_input(&row, [1.0, 0.0, 1.0, 0.0]))
            .expect("padded");
        assert_eq!((padded.width, padded.height), (8, 1));
        let StreamBuffer::U8(bytes) = &padded.buffer else {
            panic!("bytes stay bytes");
        };
        assert_eq!(&bytes[20..24], &[255, 0, 255, 0]);
        assert_eq!(bytes.len(), 32);
    }

    #[test]
    fn layouts_shrink_to_one_element() {
        let l = pass_layout(5, 3).expect("a pass");
        assert_eq!(l.domain, (3, 2));
        assert_eq!(l.uniforms[0], [2.0, 2.0, 5.0, 3.0]);
        let l = pass_layout(7, 1).expect("a pass");
        assert_eq!(l.domain, (2, 1));
        assert_eq!(l.uniforms[2], [2.0, 0.0, 3.0, 0.0]);
        let l = pass_layout(1, 9).expect("a pass");
        assert_eq!(l.domain, (1, 3));
        assert!(pass_layout(1, 1).is_none());
        // Every grid reaches 1x1.
        for w in 1..40 {
            for h in 1..40 {
                let (mut cw, mut ch, mut passes) = (w, h, 0);
                while let Some(p) = pass_layout(cw, ch) {
                    (cw, ch) = p.domain;
                    passes += 1;
                    assert!(passes < 20);
                }
                assert_eq!((cw, ch), (1, 1));
            }
        }
    }
}
