// Surface normals of a 16-bit height map by central differences.
kernel normals(scale: f32, height: In<u16>, n: Out<vec4>) {
    let p = index();
    let hx = height[p + vec2(1.0, 0.0)] - height[p - vec2(1.0, 0.0)];
    let hy = height[p + vec2(0.0, 1.0)] - height[p - vec2(0.0, 1.0)];
    let tangent = vec3(2.0, 0.0, hx * scale);
    let bitangent = vec3(0.0, 2.0, hy * scale);
    n = vec4(normalize(cross(tangent, bitangent)), 1.0);
}
