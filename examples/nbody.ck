// One step of an n-body simulation: the gravitational acceleration on each
// body from all the others. The stream holds `count` bodies in one row:
// xyz = position, w = mass.
kernel nbody(count: i32, softening: f32, bodies: In<vec4>, accel: Out<vec4>) {
    let me = bodies.xyz;
    let self_index = index().x as i32;
    let mut a = vec3(0.0);
    for k in 0..count {
        if k == self_index {
            continue;
        }
        let other = bodies[vec2(k as f32, 0.0)];
        let d = other.xyz - me;
        let inv = rsqrt(dot(d, d) + softening * softening);
        a += d * (other.w * inv * inv * inv);
    }
    accel = vec4(a, 0.0);
}
