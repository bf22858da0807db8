"""proto_cc_library: C++ code generated from .proto files by Debian's protoc.

Runs the system `protoc` (protobuf-compiler, 3.21, matching libprotobuf-dev)
and, for services, `grpc_cpp_plugin` (protobuf-compiler-grpc, 1.51, matching
libgrpc++-dev), and wraps the generated files in a cc_library. Messages so
generated cross processes with no per-type code (the protobuf serializer).
"""

def proto_cc_library(name, srcs, grpc = False, deps = [], visibility = None, testonly = False):
    """Generates `<stem>.pb.{h,cc}` (and `<stem>.grpc.pb.{h,cc}`) per file.

    Args:
      name: the cc_library's name.
      srcs: `.proto` files in this package's own directory, importing each
        other (if at all) by their path from the workspace root.
      grpc: also generate gRPC service stubs.
      deps: proto_cc_library targets whose files `srcs` import.
      visibility: of the cc_library.
      testonly: as for any rule.
    """

    # protoc reads and writes paths from the root of the repository the
    # files are in: the workspace itself, or external/<name> when the
    # macro runs in a workspace that depends on this one.
    repo = native.repository_name()
    root = "." if repo == "@" else "external/" + repo[1:]
    stems = [s[:-len(".proto")] for s in srcs]
    outs = [s + ".pb.h" for s in stems] + [s + ".pb.cc" for s in stems]
    out_root = "$(GENDIR)" if root == "." else "$(GENDIR)/" + root
    cmd = "protoc -I%s --cpp_out=%s" % (root, out_root)
    if grpc:
        outs += [s + ".grpc.pb.h" for s in stems] + [s + ".grpc.pb.cc" for s in stems]
        cmd += " --grpc_out=%s --plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin" % out_root
    package = native.package_name()
    files = " ".join(["%s/%s/%s" % (root, package, s) if package else "%s/%s" % (root, s) for s in srcs])
    native.genrule(
        name = name + "_gen",
        srcs = srcs + [d + "_srcs" for d in deps],
        outs = outs,
        cmd = cmd + " " + files,
        testonly = testonly,
        visibility = ["//visibility:private"],
    )

    # The sources, for the genrules of libraries that import them.
    native.filegroup(
        name = name + "_srcs",
        srcs = srcs,
        testonly = testonly,
        visibility = visibility,
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        # Generated code is not ours: it is compiled without our warnings
        # as errors (the flags of .bazelrc would reject protoc's output).
        copts = ["-Wno-error", "-w"],
        # Labels: resolved in this file's repository (cairn), also when the
        # macro is called from a workspace that depends on cairn.
        deps = deps + [Label("//third_party:protobuf")] +
               ([Label("//third_party:grpc")] if grpc else []),
        testonly = testonly,
        visibility = visibility,
    )
