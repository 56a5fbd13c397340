use ctm::ctm_kernel;

ctm_kernel! {
    #![targets(x1k)]
    kernel k(x: In<f32>, r0: Out<f32>, r1: Out<f32>, r2: Out<f32>, r3: Out<f32>, r4: Out<f32>) {
        r0 = x;
        r1 = x;
        r2 = x;
        r3 = x;
        r4 = x;
    }
}

fn main() {}
