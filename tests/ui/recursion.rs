use ctm::ctm_kernel;

ctm_kernel! {
    fn f(v: f32) -> f32 {
        if v > 1.0 { f(v - 1.0) } else { v }
    }

    kernel k(x: In<f32>, r: Out<f32>) {
        r = f(x);
    }
}

fn main() {}
