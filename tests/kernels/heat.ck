// One explicit step of the heat equation.
kernel heat(alpha: f32, u: In<f32>, r: Out<f32>) {
    let p = index();
    let c = u;
    let lap = u[p + vec2(1.0, 0.0)] + u[p - vec2(1.0, 0.0)] + u[p + vec2(0.0, 1.0)] + u[p - vec2(0.0, 1.0)] - 4.0 * c;
    r = c + alpha * lap;
}
