// Unit normals from raw vectors; w carries a weight through.
kernel normalize3(v: In<vec4>, r: Out<vec4>) {
    let n = normalize(v.xyz);
    r = vec4(n, v.w);
}
