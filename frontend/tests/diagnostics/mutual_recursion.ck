// expect: CK0016
fn ping(x: f32) -> f32 { if x > 0.0 { pong(x - 1.0) } else { 0.0 } }
fn pong(x: f32) -> f32 { ping(x) }
kernel k(x: In<f32>, r: Out<f32>) {
    r = ping(x);
}
