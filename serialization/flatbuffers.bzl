"""flatbuffers_cc_library: C++ code generated from FlatBuffers schemas.

Runs the system `flatc` (Debian's flatbuffers-compiler, 2.0.8, which must
match the libflatbuffers-dev headers) and wraps the generated
`<stem>_generated.h` headers in a cc_library. Use it for messages, events
and snapshots registered with //serialization:flatbuffers_serialization.
"""

def flatbuffers_cc_library(name, srcs, object_api = False, visibility = None, testonly = False):
    """Generates `<stem>_generated.h` for every schema in `srcs`.

    Args:
      name: the cc_library's name.
      srcs: `.fbs` schemas in this package's own directory (not in a
        subdirectory), with no includes between them.
      object_api: also generate the native `T` types (flatc --gen-object-api),
        which RegisterFlatBuffers<T> needs.
      visibility: of the cc_library.
      testonly: as for any rule.
    """
    outs = [s[:-len(".fbs")] + "_generated.h" for s in srcs]
    flags = "--cpp --scoped-enums"
    if object_api:
        flags += " --gen-object-api"
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = outs,
        cmd = "flatc %s -o $(RULEDIR) $(SRCS)" % flags,
        testonly = testonly,
        visibility = ["//visibility:private"],
    )
    native.cc_library(
        name = name,
        hdrs = outs,
        # A Label: resolved in this file's repository (cairn), also when the
        # macro is called from a workspace that depends on cairn.
        deps = [Label("//third_party:flatbuffers")],
        testonly = testonly,
        visibility = visibility,
    )
