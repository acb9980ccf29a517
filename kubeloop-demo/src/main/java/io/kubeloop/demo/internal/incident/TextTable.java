package io.kubeloop.demo.internal.incident;

import java.util.ArrayList;
import java.util.List;

/**
 * Rows of cells laid out in columns two spaces apart, each column as wide as its widest cell, left- or right-aligned;
 * every line indented by two spaces and without trailing blanks.
 */
final class TextTable {

    private final boolean[] rightAligned;
    private final List<String[]> rows = new ArrayList<>();

    /** {@code alignment}: one character per column, {@code l} or {@code r}. */
    TextTable(String alignment) {
        rightAligned = new boolean[alignment.length()];
        for (int i = 0; i < alignment.length(); i++) {
            char c = alignment.charAt(i);
            if (c != 'l' && c != 'r') {
                throw new IllegalArgumentException("alignment is l or r per column, got " + alignment);
            }
            rightAligned[i] = c == 'r';
        }
    }

    TextTable row(String... cells) {
        if (cells.length != rightAligned.length) {
            throw new IllegalArgumentException(
                    "a row of " + cells.length + " cells in a table of " + rightAligned.length + " columns");
        }
        rows.add(cells.clone());
        return this;
    }

    void appendTo(StringBuilder out) {
        int[] widths = new int[rightAligned.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].codePointCount(0, row[i].length()));
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder("  ");
            for (int i = 0; i < row.length; i++) {
                String pad = " ".repeat(widths[i] - row[i].codePointCount(0, row[i].length()));
                line.append(rightAligned[i] ? pad + row[i] : row[i] + pad);
                if (i < row.length - 1) {
                    line.append("  ");
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
