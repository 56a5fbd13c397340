// Swizzle reads and writes, and if as an expression.
kernel shade(color: In<vec4>, light: vec3, threshold: f32, out: Out<vec4>) {
    let mut c = color;
    c.xyz = c.zyx * light;
    c.w = 1.0;
    let lum = dot(c.rgb, vec3(0.299, 0.587, 0.114));
    let y = if lum > threshold { 1.0 } else { 0.0 };
    let tint = if lum < 0.25 {
        vec3(0.0, 0.0, 1.0)
    } else if lum < 0.75 {
        vec3(0.0, 1.0, 0.0)
    } else {
        vec3(1.0, 0.0, 0.0)
    };
    c.rgb = mix(c.rgb, tint, 0.5 * y);
    out = vec4(c.xy, c.z, c.a);
}
