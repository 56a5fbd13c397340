// Histogram-like scatter: each element writes to a computed position.
kernel scatter_rows(values: In<f32>, cutoff: f32, target: Scatter<f32>) {
    let v = values;
    if v < cutoff {
        discard;
    }
    let p = vec2(floor(v * 16.0), index().y);
    target[p] = v;
}

kernel threshold(x: In<f32>, level: f32, r: Out<f32>) {
    if x < level {
        discard;
    }
    r = x;
}
