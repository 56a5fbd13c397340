use ctm::ctm_kernel;

ctm_kernel! {
    const K: f32 = 1.0;
}

fn main() {}
