use ctm::ctm_kernel;

ctm_kernel! {
    #![targets(x1k, gpu9000)]
    kernel k(x: In<f32>, r: Out<f32>) {
        r = x;
    }
}

fn main() {}
