// An in-memory file system in the shape of Node's callback fs API, the one
// Go's js/wasm port calls (syscall/fs_js.go): the static build's worker
// sets it before wasm_exec.js, so that the explorer's handler can write a
// request's uploads to a private folder and read them back, as it does on
// disk under "pipelab serve". Everything lives in the worker's memory and
// goes with it. Standard output and error go to the console.
"use strict";

(() => {
  const S_IFDIR = 0o040000, S_IFREG = 0o100000;
  const C = { O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024, O_DIRECTORY: 65536 };
  const nodes = new Map([["/", { dir: true }], ["/tmp", { dir: true }]]); // path → {dir} or {data, size}
  const fds = new Map(); // fd → {path, pos, append}
  let nextFd = 10, ino = 1;
  const fail = code => Object.assign(new Error(code), { code });
  const norm = p => { const parts = []; for (const s of p.split("/")) { if (s === "..") parts.pop(); else if (s && s !== ".") parts.push(s); } return "/" + parts.join("/"); };
  const parent = p => p.slice(0, p.lastIndexOf("/")) || "/";
  const stat = (p, n) => {
    const t = Date.now();
    return { dev: 1, ino: n.ino || (n.ino = ino++), mode: (n.dir ? S_IFDIR | 0o755 : S_IFREG | 0o644), nlink: 1, uid: 0, gid: 0, rdev: 0,
      size: n.dir ? 0 : n.size, blksize: 4096, blocks: n.dir ? 0 : Math.ceil(n.size / 512), atimeMs: t, mtimeMs: t, ctimeMs: t,
      isDirectory: () => !!n.dir };
  };
  const grow = (n, need) => { if (need > n.data.length) { const d = new Uint8Array(Math.max(need, 2 * n.data.length)); d.set(n.data.subarray(0, n.size)); n.data = d; } };
  const out = { 1: "", 2: "" }, decoder = new TextDecoder();
  const fs = {
    constants: C,
    writeSync(fd, buf) {
      out[fd] = (out[fd] || "") + decoder.decode(buf);
      const nl = out[fd].lastIndexOf("\n");
      if (nl >= 0) { console.log(out[fd].slice(0, nl)); out[fd] = out[fd].slice(nl + 1); }
      return buf.length;
    },
    open(path, flags, mode, cb) {
      path = norm(path);
      let n = nodes.get(path);
      if (!n) {
        if (!(flags & C.O_CREAT)) return cb(fail("ENOENT"));
        const dir = nodes.get(parent(path));
        if (!dir) return cb(fail("ENOENT"));
        if (!dir.dir) return cb(fail("ENOTDIR"));
        n = { data: new Uint8Array(0), size: 0 };
        nodes.set(path, n);
      } else if ((flags & C.O_CREAT) && (flags & C.O_EXCL)) return cb(fail("EEXIST"));
      if (n.dir && (flags & (C.O_WRONLY | C.O_RDWR))) return cb(fail("EISDIR"));
      if ((flags & C.O_DIRECTORY) && !n.dir) return cb(fail("ENOTDIR"));
      if (!n.dir && (flags & C.O_TRUNC)) n.size = 0;
      const fd = nextFd++;
      fds.set(fd, { path, pos: 0, append: !!(flags & C.O_APPEND) });
      cb(null, fd);
    },
    close(fd, cb) { fds.delete(fd) ? cb(null) : cb(fail("EBADF")); },
    read(fd, buf, off, len, pos, cb) {
      const f = fds.get(fd), n = f && nodes.get(f.path);
      if (!n) return cb(fail("EBADF"));
      if (n.dir) return cb(fail("EISDIR"));
      const at = pos === null || pos === undefined ? f.pos : pos;
      const k = Math.max(0, Math.min(len, n.size - at));
      buf.set(n.data.subarray(at, at + k), off);
      if (pos === null || pos === undefined) f.pos += k;
      cb(null, k);
    },
    write(fd, buf, off, len, pos, cb) {
      if (fd === 1 || fd === 2) return cb(null, fs.writeSync(fd, buf.subarray(off, off + len)));
      const f = fds.get(fd), n = f && nodes.get(f.path);
      if (!n) return cb(fail("EBADF"));
      const at = pos === null || pos === undefined ? (f.append ? n.size : f.pos) : pos;
      grow(n, at + len);
      n.data.set(buf.subarray(off, off + len), at);
      n.size = Math.max(n.size, at + len);
      if (pos === null || pos === undefined) f.pos = at + len;
      cb(null, len);
    },
    fstat(fd, cb) { const f = fds.get(fd), n = f && nodes.get(f.path); n ? cb(null, stat(f.path, n)) : cb(fail("EBADF")); },
    stat(path, cb) { const n = nodes.get(norm(path)); n ? cb(null, stat(path, n)) : cb(fail("ENOENT")); },
    lstat(path, cb) { fs.stat(path, cb); },
    mkdir(path, perm, cb) {
      path = norm(path);
      if (nodes.has(path)) return cb(fail("EEXIST"));
      const dir = nodes.get(parent(path));
      if (!dir) return cb(fail("ENOENT"));
      if (!dir.dir) return cb(fail("ENOTDIR"));
      nodes.set(path, { dir: true });
      cb(null);
    },
    readdir(path, cb) {
      path = norm(path);
      const n = nodes.get(path);
      if (!n) return cb(fail("ENOENT"));
      if (!n.dir) return cb(fail("ENOTDIR"));
      const pre = path === "/" ? "/" : path + "/";
      cb(null, [...nodes.keys()].filter(k => k !== path && k.startsWith(pre) && !k.slice(pre.length).includes("/")).map(k => k.slice(pre.length)));
    },
    unlink(path, cb) {
      path = norm(path);
      const n = nodes.get(path);
      if (!n) return cb(fail("ENOENT"));
      if (n.dir) return cb(fail("EISDIR"));
      nodes.delete(path);
      cb(null);
    },
    rmdir(path, cb) {
      path = norm(path);
      const n = nodes.get(path);
      if (!n) return cb(fail("ENOENT"));
      if (!n.dir) return cb(fail("ENOTDIR"));
      const pre = path + "/";
      if ([...nodes.keys()].some(k => k.startsWith(pre))) return cb(fail("ENOTEMPTY"));
      nodes.delete(path);
      cb(null);
    },
    rename(from, to, cb) {
      from = norm(from); to = norm(to);
      const n = nodes.get(from);
      if (!n) return cb(fail("ENOENT"));
      if (!nodes.get(parent(to))) return cb(fail("ENOENT"));
      for (const k of [...nodes.keys()]) if (k === from || k.startsWith(from + "/")) { const v = nodes.get(k); nodes.delete(k); nodes.set(to + k.slice(from.length), v); }
      for (const f of fds.values()) if (f.path === from) f.path = to;
      cb(null);
    },
    truncate(path, len, cb) { const n = nodes.get(norm(path)); if (!n) return cb(fail("ENOENT")); grow(n, len); n.size = len; cb(null); },
    ftruncate(fd, len, cb) { const f = fds.get(fd), n = f && nodes.get(f.path); if (!n) return cb(fail("EBADF")); grow(n, len); n.size = len; cb(null); },
    fsync(fd, cb) { cb(null); },
    chmod(path, mode, cb) { nodes.has(norm(path)) ? cb(null) : cb(fail("ENOENT")); },
    fchmod(fd, mode, cb) { fds.has(fd) ? cb(null) : cb(fail("EBADF")); },
    chown(path, uid, gid, cb) { cb(null); },
    fchown(fd, uid, gid, cb) { cb(null); },
    lchown(path, uid, gid, cb) { cb(null); },
    utimes(path, atime, mtime, cb) { cb(null); },
    link(path, link, cb) { cb(fail("ENOSYS")); },
    symlink(path, link, cb) { cb(fail("ENOSYS")); },
    readlink(path, cb) { cb(fail("EINVAL")); },
  };
  globalThis.fs = fs;
})();
