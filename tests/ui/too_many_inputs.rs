use ctm::ctm_kernel;

ctm_kernel! {
    kernel k(
        a0: In<f32>, a1: In<f32>, a2: In<f32>, a3: In<f32>, a4: In<f32>, a5: In<f32>,
        a6: In<f32>, a7: In<f32>, a8: In<f32>, a9: In<f32>, a10: In<f32>, a11: In<f32>,
        a12: In<f32>, a13: In<f32>, a14: In<f32>, a15: In<f32>, a16: In<f32>,
        r: Out<f32>,
    ) {
        r = a0 + a16;
    }
}

fn main() {}
