use ctm::ctm_kernel;

ctm_kernel! {
    kernel k(x: In<f32>, r: Out<f32>) {
        if x > 0.0 {
            r = x;
        }
    }
}

fn main() {}
