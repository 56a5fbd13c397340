// expect: CK0011
fn twice(x: f32) -> f32 { x * 2.0 }
fn twice(x: f32) -> f32 { x + x }
kernel k(x: In<f32>, r: Out<f32>) {
    r = twice(x);
}
