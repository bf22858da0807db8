"""reference_conf: ship a module's reference.conf inside its library."""

def reference_conf(name, src, module = None, visibility = None):
    """Embeds `src` in a cc_library that registers it with //hocon:config.

    Config::Load then merges every linked module's defaults under the
    application's configuration, as Akka merges the reference.conf of each
    jar on the classpath.

    Args:
      name: the cc_library to create (alwayslink, so registration survives
        linking even though nothing refers to it).
      src: the HOCON file.
      module: the registration name; defaults to the package path.
      visibility: of the library.
    """
    module = module or native.package_name()
    native.genrule(
        name = name + "_cc",
        srcs = [src],
        outs = [name + ".cc"],
        cmd = "\n".join([
            "(",
            "echo '#include \"hocon/reference_registry.h\"';",
            "echo 'namespace {';",
            "echo '[[maybe_unused]] const bool kRegistered =';",
            "echo '    cairn::hocon::RegisterReferenceConf(\"%s\", R\"cairnconf(';" % module,
            "cat $<;",
            "echo ')cairnconf\");';",
            "echo '}  // namespace';",
            ") > $@",
        ]),
    )
    native.cc_library(
        name = name,
        srcs = [name + ".cc"],
        deps = ["//hocon:reference_registry"],
        alwayslink = 1,
        visibility = visibility,
    )
