package dragld;

import java.io.InputStream;
import java.lang.instrument.ClassDefinition;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * test_drag_loaders' program (issue 25): drag mode and class loaders that do
 * not delegate, and a HotSwap made while drag mode is on.
 *
 * Arguments: DIR SWAP (SWAP: the class file of a dragld.Swap whose get()
 * returns 2). It prints "ready", waits for DIR/on; loads dragld.IsoItem with
 * a loader that passes only java.* to its parent (like OSGi's), calls its
 * inc() 1000 times and prints "iso inc=1000" (an exception there: the line
 * names it, exit 3); prints "swap before=N" for Swap.get(), redefines Swap
 * from SWAP through ClassBytesProbe's Instrumentation (heaptop-probe.jar on
 * -javaagent), prints "swap on=N", writes DIR/swapped, waits for DIR/off,
 * prints "swap off=N" and exits 0. Each wait has a deadline of 120 s.
 */
public final class DragLoaders {
    /* OSGi-like: only java.* and jdk.* (reflection's accessors) go to the
     * parent (the boot loader); the rest
     * is defined from the class path's bytes, by this loader */
    static final class Iso extends ClassLoader {
        Iso() {
            super(null);
        }

        @Override
        protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(n)) {
                Class<?> c = findLoadedClass(n);
                if (c != null) return c;
                if (n.startsWith("java.") || n.startsWith("jdk.")) return super.loadClass(n, resolve);
                try (InputStream in = ClassLoader.getSystemResourceAsStream(n.replace('.', '/') + ".class")) {
                    if (in == null) throw new ClassNotFoundException(n);
                    byte[] b = in.readAllBytes();
                    return defineClass(n, b, 0, b.length);
                } catch (java.io.IOException e) {
                    throw new ClassNotFoundException(n);
                }
            }
        }
    }

    static void await(Path f) throws Exception {
        long end = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(f)) {
            if (System.nanoTime() > end) throw new IllegalStateException("no " + f + " in 120 s");
            Thread.sleep(20);
        }
    }

    public static void main(String[] a) throws Exception {
        Path dir = Paths.get(a[0]);
        System.out.println("ready");
        System.out.flush();
        await(dir.resolve("on"));
        try {
            Class<?> k = new Iso().loadClass("dragld.IsoItem");
            java.lang.reflect.Constructor<?> make = k.getDeclaredConstructor();
            make.setAccessible(true); /* another runtime package: its own loader's */
            Object o = make.newInstance();
            Method inc = k.getDeclaredMethod("inc");
            inc.setAccessible(true);
            int n = 0;
            for (int i = 0; i < 1000; i++)
                n = (Integer) inc.invoke(o);
            System.out.println("iso inc=" + n);
        } catch (Throwable t) {
            Throwable c = t.getCause() != null ? t.getCause() : t;
            System.out.println("iso failed: " + c);
            System.exit(3);
        }
        Swap s = new Swap();
        System.out.println("swap before=" + s.get());
        Instrumentation inst = (Instrumentation) ClassLoader.getSystemClassLoader()
            .loadClass("ClassBytesProbe").getField("inst").get(null);
        inst.redefineClasses(new ClassDefinition(Swap.class, Files.readAllBytes(Paths.get(a[1]))));
        System.out.println("swap on=" + s.get());
        System.out.flush();
        Files.writeString(dir.resolve("swapped"), "");
        await(dir.resolve("off"));
        System.out.println("swap off=" + s.get());
    }
}

/* Loaded by DragLoaders.Iso: its instance method gets the injected call. */
class IsoItem {
    private int n;

    public IsoItem() {}

    int inc() {
        return ++n;
    }
}

/* Redefined while drag mode is on: get() returns 1, after the HotSwap 2. */
class Swap {
    int get() {
        return 1;
    }
}
