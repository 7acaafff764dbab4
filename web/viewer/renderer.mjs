// WebGL2 drawing for the viewer (docs/web.md): the asset's meshes skinned on the GPU from marrow's
// palettes (one float texture row of four texels per skin joint), rigid meshes under their node's
// model matrix, the materials' base colours and textures, a ground grid with a contact shadow, and
// the skeleton as lines. Model space is taken as Y-up, as glTF defines it.

const MESH_VERTEX = `#version 300 es
in vec3 position;
in vec3 normal;
in vec2 uv;
in uvec4 joints;
in vec4 weights;
in float heat;
uniform highp sampler2D palette;
uniform bool skinned;
uniform mat4 rigid;
uniform mat4 viewProjection;
uniform vec3 offset;
out vec3 worldNormal;
out vec2 texcoord;
out float vertexHeat;
mat4 joint(uint j) {
  int row = int(j);
  return mat4(texelFetch(palette, ivec2(0, row), 0), texelFetch(palette, ivec2(1, row), 0),
              texelFetch(palette, ivec2(2, row), 0), texelFetch(palette, ivec2(3, row), 0));
}
void main() {
  mat4 m = skinned ? weights.x * joint(joints.x) + weights.y * joint(joints.y) +
                     weights.z * joint(joints.z) + weights.w * joint(joints.w)
                   : rigid;
  worldNormal = mat3(m) * normal;
  texcoord = uv;
  vertexHeat = heat;
  gl_Position = viewProjection * (m * vec4(position, 1.0) + vec4(offset, 0.0));
}`;

const MESH_FRAGMENT = `#version 300 es
precision highp float;
in vec3 worldNormal;
in vec2 texcoord;
in float vertexHeat;
uniform vec4 baseColor;
uniform bool textured;
uniform bool showHeat;
uniform sampler2D baseTexture;
out vec4 color;
// A joint's weight as a heat map: blue at 0, through green, to red at 1.
vec3 heatColor(float w) {
  return clamp(vec3(2.0 * w - 0.5, 1.0 - abs(2.0 * w - 1.0) * 1.5 + 0.25, 1.5 - 2.0 * w), 0.0, 1.0);
}
void main() {
  vec4 albedo = showHeat ? vec4(heatColor(vertexHeat), 1.0)
                         : baseColor * (textured ? texture(baseTexture, texcoord) : vec4(1.0));
  vec3 n = normalize(worldNormal);
  float light = 0.35 + 0.65 * max(dot(n, normalize(vec3(0.4, 0.9, 0.6))), 0.0);
  color = vec4(albedo.rgb * light, 1.0);
}`;

const FLAT_VERTEX = `#version 300 es
in vec3 position;
in vec4 color;
uniform mat4 viewProjection;
out vec4 vertexColor;
void main() {
  vertexColor = color;
  gl_Position = viewProjection * vec4(position, 1.0);
}`;

const FLAT_FRAGMENT = `#version 300 es
precision mediump float;
in vec4 vertexColor;
out vec4 color;
void main() { color = vertexColor; }`;

function compile(gl, vertex, fragment) {
  const program = gl.createProgram();
  for (const [type, source] of [[gl.VERTEX_SHADER, vertex], [gl.FRAGMENT_SHADER, fragment]]) {
    const shader = gl.createShader(type);
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) {
      throw new Error(`viewer shader: ${gl.getShaderInfoLog(shader)}`);
    }
    gl.attachShader(program, shader);
  }
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
    throw new Error(`viewer shader: ${gl.getProgramInfoLog(program)}`);
  }
  return program;
}

// Column-major 4x4 products and a perspective look-at camera.
export function multiply(a, b) {
  const out = new Float32Array(16);
  for (let c = 0; c < 4; ++c) {
    for (let r = 0; r < 4; ++r) {
      let s = 0;
      for (let k = 0; k < 4; ++k) s += a[k * 4 + r] * b[c * 4 + k];
      out[c * 4 + r] = s;
    }
  }
  return out;
}

export function viewProjection(camera, aspect) {
  const { target, distance, yaw, pitch, fov } = camera;
  const eye = [target[0] + distance * Math.cos(pitch) * Math.sin(yaw),
               target[1] + distance * Math.sin(pitch),
               target[2] + distance * Math.cos(pitch) * Math.cos(yaw)];
  const f = [target[0] - eye[0], target[1] - eye[1], target[2] - eye[2]];
  const fl = Math.hypot(...f);
  f.forEach((v, i) => { f[i] = v / fl; });
  let s = [f[1] * 0 - f[2] * 1, f[2] * 0 - f[0] * 0, f[0] * 1 - f[1] * 0];  // f x up(0,1,0)
  const sl = Math.hypot(...s) || 1;
  s = s.map((v) => v / sl);
  const u = [s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]];
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const view = new Float32Array([s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0,
                                 -dot(s, eye), -dot(u, eye), dot(f, eye), 1]);
  const near = distance * 0.01, far = distance * 20;
  const t = 1 / Math.tan(fov / 2);
  const projection = new Float32Array([t / aspect, 0, 0, 0, 0, t, 0, 0,
                                       0, 0, (far + near) / (near - far), -1,
                                       0, 0, (2 * far * near) / (near - far), 0]);
  return multiply(projection, view);
}

export class Renderer {
  constructor(canvas) {
    const gl = canvas.getContext('webgl2', { antialias: true, preserveDrawingBuffer: true });
    if (!gl) throw new Error('this browser gives the page no WebGL 2 context');
    this.gl = gl;
    this.canvas = canvas;
    this.meshProgram = compile(gl, MESH_VERTEX, MESH_FRAGMENT);
    this.flatProgram = compile(gl, FLAT_VERTEX, FLAT_FRAGMENT);
    this.meshes = [];
    this.lines = gl.createBuffer();
    this.paletteTexture = gl.createTexture();
    this.showSkeleton = true;
    this.showMeshes = true;
    this.showHeat = false;
  }

  // Each skinned mesh's per-vertex weight of skeleton joint `joint` (through its skin's joint
  // list), uploaded for the heat map; returns the weights, one array per mesh.
  setHeatJoint(joint) {
    const gl = this.gl;
    return this.meshes.map((mesh) => {
      const heat = new Float32Array(mesh.joints.length / 4);
      if (mesh.skinned) {
        const skinJoints = this.asset.info.skins[mesh.skin].joints;
        for (let v = 0; v < heat.length; ++v) {
          for (let k = 0; k < 4; ++k) {
            if (skinJoints[mesh.joints[v * 4 + k]] === joint) heat[v] += mesh.weights[v * 4 + k];
          }
        }
      }
      gl.bindBuffer(gl.ARRAY_BUFFER, mesh.heat);
      gl.bufferData(gl.ARRAY_BUFFER, heat, gl.DYNAMIC_DRAW);
      return heat;
    });
  }

  // Uploads the asset's meshes and starts decoding its textures (drawn untextured until ready).
  setAsset(asset) {
    const gl = this.gl;
    for (const mesh of this.meshes) gl.deleteVertexArray(mesh.vao);
    this.meshes = [];
    this.asset = asset;
    this.parents = asset.info.nodes.map((node) => node.parent ?? -1);
    const textures = new Map();
    const pending = [];
    for (let i = 0; i < asset.meshCount; ++i) {
      const m = asset.mesh(i);
      if (m.indices.length === 0) continue;
      const vao = gl.createVertexArray();
      gl.bindVertexArray(vao);
      const morphs = (asset.info.meshes[i]?.morph_targets?.length ?? 0) > 0;
      const attribute = (name, data, size, integer = false, usage = gl.STATIC_DRAW) => {
        const location = gl.getAttribLocation(this.meshProgram, name);
        if (location < 0 || data.length === 0) return null;
        const buffer = gl.createBuffer();
        gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
        gl.bufferData(gl.ARRAY_BUFFER, data, usage);
        gl.enableVertexAttribArray(location);
        if (integer) gl.vertexAttribIPointer(location, size, gl.UNSIGNED_SHORT, 0, 0);
        else gl.vertexAttribPointer(location, size, gl.FLOAT, false, 0, 0);
        return buffer;
      };
      // Meshes with morph targets get their bind-pose vertices again from marrow whenever the
      // drawn character's morph weights change (drawMeshes).
      const usage = morphs ? gl.DYNAMIC_DRAW : gl.STATIC_DRAW;
      const positionBuffer = attribute('position', m.positions, 3, false, usage);
      const normalBuffer = attribute('normal', m.normals, 3, false, usage);
      attribute('uv', m.uvs, 2);
      attribute('joints', m.joints, 4, true);
      attribute('weights', m.weights, 4);
      const heat = gl.createBuffer();
      const heatLocation = gl.getAttribLocation(this.meshProgram, 'heat');
      gl.bindBuffer(gl.ARRAY_BUFFER, heat);
      gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(m.positions.length / 3), gl.DYNAMIC_DRAW);
      if (heatLocation >= 0) {
        gl.enableVertexAttribArray(heatLocation);
        gl.vertexAttribPointer(heatLocation, 1, gl.FLOAT, false, 0, 0);
      }
      const indices = gl.createBuffer();
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, indices);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, m.indices, gl.STATIC_DRAW);
      gl.bindVertexArray(null);
      const material = asset.info.materials[m.material] ?? null;
      if (m.clampedInfluences > 0) {
        this.onNote?.(`${asset.name}: mesh ${i}: ${m.clampedInfluences} vertices have more than ` +
                      'four influences; the viewer draws their four largest (marrow skins them all)');
      }
      // The bind pose's box (for a rigid mesh, in its node's frame), which the camera frames.
      const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
      for (let v = 0; v < m.positions.length; v += 3) {
        for (let k = 0; k < 3; ++k) {
          lo[k] = Math.min(lo[k], m.positions[v + k]);
          hi[k] = Math.max(hi[k], m.positions[v + k]);
        }
      }
      const entry = { vao, count: m.indices.length, skin: m.skin, node: m.node, heat, index: i,
                      bounds: [lo, hi],
                      morphs, positionBuffer, normalBuffer, morphKey: '',
                      joints: m.joints, weights: m.weights,
                      skinned: m.skin >= 0 && m.joints.length > 0,
                      baseColor: material?.base_color ?? [0.8, 0.8, 0.8, 1], texture: null };
      const image = material?.base_color_texture?.image;
      if (image !== undefined && image !== null) {
        if (!textures.has(image)) textures.set(image, this.decodeTexture(asset.image(image)));
        pending.push(textures.get(image).then((texture) => { entry.texture = texture; }));
      }
      this.meshes.push(entry);
    }
    /** Settles when every texture is decoded (or failed: its mesh is drawn untextured). */
    this.ready = Promise.all(pending);
  }

  async decodeTexture(image) {
    if (!image.bytes) return null;
    let bitmap;
    try {
      bitmap = await createImageBitmap(new Blob([image.bytes], { type: image.mimeType }));
    } catch (error) {
      this.onNote?.(`${image.name}: the browser could not decode this image (${error.message})`);
      return null;
    }
    const gl = this.gl;
    const texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, bitmap);
    gl.generateMipmap(gl.TEXTURE_2D);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
    return texture;
  }

  // The ground grid (lines every `step` across 20 steps), the contact shadow under `root` and the
  // skeleton, as coloured lines and triangles.
  flatGeometry(model, radius, root) {
    const lines = [], triangles = [];
    const step = Math.pow(10, Math.floor(Math.log10(radius / 2)));
    const half = step * 10;
    const cx = Math.round(root[0] / step) * step, cz = Math.round(root[2] / step) * step;
    for (let i = -10; i <= 10; ++i) {
      const g = i === 0 ? 0.55 : 0.72;
      lines.push(cx - half, 0, cz + i * step, g, g, g, 1, cx + half, 0, cz + i * step, g, g, g, 1);
      lines.push(cx + i * step, 0, cz - half, g, g, g, 1, cx + i * step, 0, cz + half, g, g, g, 1);
    }
    const shadow = radius * 0.35, sides = 24;
    for (let i = 0; i < sides; ++i) {
      const a = (i / sides) * 2 * Math.PI, b = ((i + 1) / sides) * 2 * Math.PI;
      triangles.push(root[0], 0.001 * radius, root[2], 0, 0, 0, 0.35,
                     root[0] + shadow * Math.cos(a), 0.001 * radius, root[2] + shadow * Math.sin(a),
                     0, 0, 0, 0,
                     root[0] + shadow * Math.cos(b), 0.001 * radius, root[2] + shadow * Math.sin(b),
                     0, 0, 0, 0);
    }
    const bones = [];
    if (this.showSkeleton) {
      this.parents.forEach((parent, j) => {
        if (parent < 0) return;
        bones.push(model[j * 16 + 12], model[j * 16 + 13], model[j * 16 + 14], 1, 0.35, 0.1, 1,
                   model[parent * 16 + 12], model[parent * 16 + 13], model[parent * 16 + 14],
                   1, 0.35, 0.1, 1);
      });
    }
    return { lines: new Float32Array(lines), triangles: new Float32Array(triangles),
             bones: new Float32Array(bones) };
  }

  drawFlat(data, mode, vp) {
    if (data.length === 0) return;
    const gl = this.gl;
    gl.useProgram(this.flatProgram);
    gl.bindVertexArray(null);
    gl.bindBuffer(gl.ARRAY_BUFFER, this.lines);
    gl.bufferData(gl.ARRAY_BUFFER, data, gl.STREAM_DRAW);
    const position = gl.getAttribLocation(this.flatProgram, 'position');
    const color = gl.getAttribLocation(this.flatProgram, 'color');
    gl.enableVertexAttribArray(position);
    gl.vertexAttribPointer(position, 3, gl.FLOAT, false, 28, 0);
    gl.enableVertexAttribArray(color);
    gl.vertexAttribPointer(color, 4, gl.FLOAT, false, 28, 12);
    gl.uniformMatrix4fv(gl.getUniformLocation(this.flatProgram, 'viewProjection'), false, vp);
    gl.drawArrays(mode, 0, data.length / 7);
    gl.disableVertexAttribArray(position);
    gl.disableVertexAttribArray(color);
  }

  // One frame: the character as `character` last evaluated it, seen by `camera`, and the crowd
  // ({character, offset}: more characters' meshes, moved by offset in model space).
  draw(character, camera, radius, root, crowd = []) {
    const gl = this.gl;
    const canvas = this.canvas;
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(0.93, 0.94, 0.96, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    const vp = viewProjection(camera, canvas.width / canvas.height);
    const model = character.modelMatrices();
    const flat = this.flatGeometry(model, radius, root);
    this.drawFlat(flat.lines, gl.LINES, vp);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    gl.depthMask(false);
    this.drawFlat(flat.triangles, gl.TRIANGLES, vp);
    gl.depthMask(true);
    gl.disable(gl.BLEND);
    if (this.showMeshes) {
      this.drawMeshes(character, model, vp, [0, 0, 0]);
      for (const other of crowd) {
        this.drawMeshes(other.character, other.character.modelMatrices(), vp, other.offset);
      }
    }
    gl.disable(gl.DEPTH_TEST);
    this.drawFlat(flat.bones, gl.LINES, vp);
    return vp;
  }

  // The character's morphed bind-pose vertices into the mesh's buffers, when its weights differ
  // from those the buffers hold.
  uploadMorphs(character, mesh) {
    const key = character.morphWeights().join(',');
    if (key === mesh.morphKey) return;
    const morphed = character.morphedMesh(mesh.index);
    if (morphed === null) return;
    const gl = this.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, mesh.positionBuffer);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, morphed.positions);
    if (mesh.normalBuffer && morphed.normals) {
      gl.bindBuffer(gl.ARRAY_BUFFER, mesh.normalBuffer);
      gl.bufferSubData(gl.ARRAY_BUFFER, 0, morphed.normals);
    }
    mesh.morphKey = key;
  }

  drawMeshes(character, model, vp, offset) {
    const gl = this.gl;
    gl.useProgram(this.meshProgram);
    const uniform = (name) => gl.getUniformLocation(this.meshProgram, name);
    gl.uniformMatrix4fv(uniform('viewProjection'), false, vp);
    gl.uniform3fv(uniform('offset'), offset);
    gl.uniform1i(uniform('palette'), 0);
    gl.uniform1i(uniform('baseTexture'), 1);
    // A rigid mesh has no joints array: its draw reads the generic value, which WebGL 2 requires
    // to be of the shader's type (unsigned integers), or the draw fails with INVALID_OPERATION.
    const joints = gl.getAttribLocation(this.meshProgram, 'joints');
    if (joints >= 0) gl.vertexAttribI4ui(joints, 0, 0, 0, 0);
    let uploaded = -1;
    for (const mesh of this.meshes) {
      if (mesh.skinned && uploaded !== mesh.skin) {
        const palette = character.palette(mesh.skin);
        gl.activeTexture(gl.TEXTURE0);
        gl.bindTexture(gl.TEXTURE_2D, this.paletteTexture);
        gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, 4, palette.length / 16, 0, gl.RGBA, gl.FLOAT,
                      palette);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
        gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
        uploaded = mesh.skin;
      }
      if (mesh.morphs) this.uploadMorphs(character, mesh);
      gl.uniform1i(uniform('skinned'), mesh.skinned ? 1 : 0);
      const node = mesh.node >= 0 ? model.subarray(mesh.node * 16, mesh.node * 16 + 16)
                                  : new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
      gl.uniformMatrix4fv(uniform('rigid'), false, node);
      gl.uniform4fv(uniform('baseColor'), mesh.baseColor);
      gl.uniform1i(uniform('textured'), mesh.texture ? 1 : 0);
      gl.uniform1i(uniform('showHeat'), this.showHeat ? 1 : 0);
      gl.activeTexture(gl.TEXTURE1);
      gl.bindTexture(gl.TEXTURE_2D, mesh.texture);
      gl.bindVertexArray(mesh.vao);
      gl.drawElements(gl.TRIANGLES, mesh.count, gl.UNSIGNED_INT, 0);
    }
    gl.bindVertexArray(null);
  }
}
