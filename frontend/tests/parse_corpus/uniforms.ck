// Uniform arrays, mat4 and an i32 loop bound.
kernel transform(
    points: In<vec4>,
    m: mat4,
    weights: [vec4; 8],
    scales: [f32; 4],
    n: i32,
    out: Out<vec4>,
) {
    let mut acc = vec4(0.0, 0.0, 0.0, 0.0);
    for k in 0..n {
        acc += weights[k] * scales[k % 4];
    }
    out = m * points + acc;
}
