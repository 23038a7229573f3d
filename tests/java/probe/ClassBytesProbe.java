import java.io.File;
import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.List;

/**
 * A java.lang.instrument agent for test_drag_onoff: it shows the class bytes
 * the JVM holds for the classes of a prefix, as a retransform-capable agent
 * loaded after heaptop's sees them (the output of heaptop's ClassFileLoadHook).
 * Its own jar (heaptop-probe.jar, Premain-Class and Agent-Class this class,
 * Can-Retransform-Classes true); it transforms nothing.
 *
 * Agent argument: PREFIX,DIR (PREFIX dotted, e.g. "dragwl."). A daemon
 * thread "bytes-probe" waits for DIR/req-N (N = 1, 2, ... in turn); for each
 * it calls Instrumentation.retransformClasses on every loaded class of the
 * prefix, writes the bytes its transformer was handed for each to
 * DIR/dump-N/NAME.class, then writes DIR/done-N: "classes=K" or "error=WHAT",
 * one line. At a class's first load it writes DIR/load/NAME.class the same way,
 * and at any other agent's retransformation (heaptop's drag on and off)
 * DIR/seen/NAME.class: the bytes the JVM then defines the class from. (Its
 * own retransformations show the JVM's rebuilt copy of a class, which for a
 * class without a cached original the JVM rebuilds from the running class:
 * for one with a method still running, that copy grows at each
 * retransformation, this probe's own included.)
 */
public final class ClassBytesProbe implements ClassFileTransformer {
    private final String prefix; /* internal form: "dragwl/" */
    private final File dir;
    private final File load;
    private final File seen;
    private volatile File capture; /* where a retransformation's bytes go, null between requests */
    /* for test_drag_loaders' program (dragld.DragLoaders): its HotSwap */
    public static volatile Instrumentation inst;

    private ClassBytesProbe(String prefix, File dir) {
        this.prefix = prefix;
        this.dir = dir;
        this.load = new File(dir, "load");
        this.seen = new File(dir, "seen");
    }

    public static void premain(String args, Instrumentation inst) {
        agentmain(args, inst);
    }

    public static void agentmain(String args, Instrumentation inst) {
        int comma = args == null ? -1 : args.indexOf(',');
        if (comma <= 0 || !inst.isRetransformClassesSupported())
            throw new IllegalArgumentException("ClassBytesProbe: expected PREFIX,DIR and a JVM that retransforms, got " + args);
        String dotted = args.substring(0, comma);
        ClassBytesProbe p = new ClassBytesProbe(dotted.replace('.', '/'), new File(args.substring(comma + 1)));
        ClassBytesProbe.inst = inst;
        inst.addTransformer(p, true);
        Thread t = new Thread(() -> p.serve(inst, dotted), "bytes-probe");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined,
                            ProtectionDomain pd, byte[] bytes) {
        File to = redefined == null ? load : capture != null ? capture : seen;
        if (to == null || name == null || !name.startsWith(prefix)) return null;
        try {
            to.mkdirs();
            Files.write(new File(to, name.replace('/', '.') + ".class").toPath(), bytes);
        } catch (IOException e) {
            System.err.println("ClassBytesProbe: " + e);
        }
        return null;
    }

    private void serve(Instrumentation inst, String dotted) {
        try {
            for (int n = 1;; n++) {
                File req = new File(dir, "req-" + n);
                while (!req.exists()) Thread.sleep(20);
                String result;
                try {
                    List<Class<?>> cs = new ArrayList<>();
                    for (Class<?> c : inst.getAllLoadedClasses())
                        if (c.getName().startsWith(dotted) && inst.isModifiableClass(c)) cs.add(c);
                    capture = new File(dir, "dump-" + n);
                    capture.mkdirs();
                    if (!cs.isEmpty()) inst.retransformClasses(cs.toArray(new Class<?>[0]));
                    result = "classes=" + cs.size();
                } catch (Throwable e) {
                    result = "error=" + e.toString().replace('\n', ' ');
                } finally {
                    capture = null;
                }
                File tmp = new File(dir, "done-" + n + ".tmp");
                Files.write(tmp.toPath(), (result + "\n").getBytes());
                Files.move(tmp.toPath(), new File(dir, "done-" + n).toPath());
            }
        } catch (InterruptedException | IOException e) {
            System.err.println("ClassBytesProbe: " + e);
        }
    }
}
