// A piecewise transfer curve.
kernel piecewise(lo: f32, hi: f32, x: In<f32>, r: Out<f32>) {
    let v = x;
    if v < lo {
        r = 0.0;
    } else if v < hi {
        r = (v - lo) / (hi - lo);
    } else {
        r = 1.0 + 0.1 * (v - hi);
    }
}
