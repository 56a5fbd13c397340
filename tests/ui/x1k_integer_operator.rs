use ctm::ctm_kernel;

ctm_kernel! {
    #![targets(x1k)]
    kernel k(seed: i32, r: Out<f32>) {
        let h = (seed * 7) % 13;
        r = h as f32;
    }
}

fn main() {}
