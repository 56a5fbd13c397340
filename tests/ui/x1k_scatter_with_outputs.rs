use ctm::ctm_kernel;

ctm_kernel! {
    #![targets(x1k)]
    kernel k(x: In<f32>, r: Out<f32>, s: Scatter<f32>) {
        r = x;
        s[index()] = x;
    }
}

fn main() {}
