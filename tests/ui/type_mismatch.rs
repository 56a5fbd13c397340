use ctm::ctm_kernel;

ctm_kernel! {
    kernel k(x: In<f32>, r: Out<f32>) {
        let v: vec2 = x;
        r = v.x;
    }
}

fn main() {}
