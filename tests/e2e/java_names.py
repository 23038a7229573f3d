"""Class names as Java writes them, for comparing heaptop's files (which use
Java's names everywhere: "int[]", "java.lang.Object[]") with what `jcmd
GC.class_histogram` prints (the JVM's descriptors: "[I", "[Ljava.lang.Object;")."""

PRIMS = dict(zip("ZCFDBSIJ", ("boolean", "char", "float", "double", "byte", "short", "int",
                              "long")))


def java_name(name):
    """ "[[I" -> "int[][]", "[Ljava.lang.Object;" -> "java.lang.Object[]"; other
    names as they are."""
    dims = len(name) - len(name.lstrip("["))
    if not dims:
        return name
    e = name[dims:]
    if e in PRIMS:
        base = PRIMS[e]
    elif e.startswith("L") and e.endswith(";"):
        base = e[1:-1]
    else:
        return name
    return base + "[]" * dims


def java_names(hist):
    """A {class: figures} histogram with Java's names, figures of one name summed."""
    out = {}
    for k, v in hist.items():
        n = java_name(k)
        out[n] = tuple(a + b for a, b in zip(out[n], v)) if n in out else v
    return out
