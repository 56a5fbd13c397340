reduce sum(a: f32, b: f32) -> f32 { a + b }

reduce maxv(a: vec4, b: vec4) -> vec4 {
    max(a, b)
}

reduce minmax(a: vec2, b: vec2) -> vec2 {
    vec2(min(a.x, b.x), max(a.y, b.y))
}
