package io.kubeloop.demo.view;

import java.util.ArrayList;
import java.util.List;

/**
 * A tiny terminal for the tests: plays back text with the escapes the live view uses (cursor up {@code ESC[nA},
 * {@code \r}, erase line {@code ESC[2K}, erase below {@code ESC[J}, {@code \n}) and shows what the screen holds.
 * Fails on any other escape, so the view cannot start using one the tests do not understand.
 */
final class Screen {

    private final List<StringBuilder> rows = new ArrayList<>();
    private int row;
    private int col;

    /** The row the cursor is on (0 = the first). */
    int cursorRow() {
        return row;
    }

    int cursorColumn() {
        return col;
    }

    static List<String> play(String output) {
        Screen s = new Screen();
        s.feed(output);
        return s.lines();
    }

    void feed(String s) {
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\033') {
                if (i + 1 >= s.length() || s.charAt(i + 1) != '[') {
                    throw new AssertionError("an escape that is not CSI at " + i);
                }
                int j = i + 2;
                while (j < s.length() && Character.isDigit(s.charAt(j))) {
                    j++;
                }
                String arg = s.substring(i + 2, j);
                char command = s.charAt(j);
                switch (command) {
                    case 'A' -> {
                        row -= arg.isEmpty() ? 1 : Integer.parseInt(arg);
                        if (row < 0) {
                            throw new AssertionError("the cursor went above the screen's first line");
                        }
                    }
                    case 'K' -> {
                        if (!arg.equals("2")) {
                            throw new AssertionError("unexpected erase-line mode " + arg);
                        }
                        current().setLength(0);
                    }
                    case 'J' -> {
                        if (!arg.isEmpty() && !arg.equals("0")) {
                            throw new AssertionError("unexpected erase mode " + arg);
                        }
                        StringBuilder r = current();
                        r.setLength(Math.min(col, r.length()));
                        while (rows.size() > row + 1) {
                            rows.removeLast();
                        }
                    }
                    default -> throw new AssertionError("an escape the view should not use: ESC[" + arg + command);
                }
                i = j + 1;
            } else if (c == '\r') {
                col = 0;
                i++;
            } else if (c == '\n') {
                row++;
                col = 0;
                i++;
            } else {
                StringBuilder r = current();
                while (r.length() < col) {
                    r.append(' ');
                }
                if (col < r.length()) {
                    r.setCharAt(col, c);
                } else {
                    r.append(c);
                }
                col++;
                i++;
            }
        }
    }

    private StringBuilder current() {
        while (rows.size() <= row) {
            rows.add(new StringBuilder());
        }
        return rows.get(row);
    }

    /** The screen's lines, without the empty line the cursor sits on at the end. */
    List<String> lines() {
        List<String> out = new ArrayList<>();
        for (StringBuilder r : rows) {
            out.add(r.toString());
        }
        while (!out.isEmpty() && out.getLast().isEmpty()) {
            out.removeLast();
        }
        return out;
    }
}
