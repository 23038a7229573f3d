import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Loads and initializes every class under a directory of the class path (its
 * first argument), in name order, so that -Xverify:all verifies each one, and
 * prints one line per class: its name and "ok" or what it threw. For the
 * drag rewriter's check (tests/e2e/test_class_rewrite_programs.py): the lines
 * must be the same for the rewritten classes as for the originals, and no
 * VerifyError or ClassFormatError.
 */
public class LoadAllClasses {
    public static void main(String[] args) throws IOException {
        Path root = Paths.get(args[0]);
        List<String> names;
        try (Stream<Path> s = Files.walk(root)) {
            names = s.filter(p -> p.toString().endsWith(".class"))
                     .map(p -> root.relativize(p).toString())
                     .map(n -> n.substring(0, n.length() - 6).replace('/', '.'))
                     .sorted()
                     .collect(Collectors.toList());
        }
        ClassLoader loader = LoadAllClasses.class.getClassLoader();
        for (String n : names) {
            String outcome;
            try {
                Class.forName(n, true, loader);
                outcome = "ok";
            } catch (Throwable t) {
                outcome = t.getClass().getName();
            }
            System.out.println(n + " " + outcome);
        }
    }
}
