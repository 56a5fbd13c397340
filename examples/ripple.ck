// A procedural ripple image: trigonometry, exponentials, smoothstep, mix.
const TAU: f32 = 6.2831853;

kernel ripple(time: f32, center: vec2, r: Out<vec4>) {
    let uv = index() / domain();
    let d = distance(uv, center);
    // Refraction by the wave front bends the sample point.
    let bend = tan(0.25 * sin(TAU * d));
    let refracted = uv + bend * 0.01;
    let shade = 0.9 + 0.1 * length(refracted - center);
    let wave = sin(TAU * (d * 8.0 - time)) * exp2(-4.0 * d);
    let edge = smoothstep(0.2, 0.25, d);
    let deep = vec3(0.1, 0.2, 0.5);
    let sand = vec3(0.9, 0.8, 0.3);
    let base = mix(deep, sand, saturate(0.5 + 0.5 * wave));
    let ring = step(0.5, fract(d * 10.0));
    r = vec4(shade * base * (1.0 - 0.3 * edge) + 0.05 * ring, 1.0);
}
