package io.kubeloop.model.selector;

import io.kubeloop.model.selector.LabelSelector.Operator;
import io.kubeloop.model.selector.LabelSelector.Requirement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * apimachinery's label selector lexer and recursive-descent parser ({@code labels.Parse}), token for token,
 * so that the same input fails at the same place with the same message. The requirements come back in input
 * order; {@link LabelSelector#of} sorts them.
 *
 * <p>Quirks kept on purpose: {@code in} and {@code notin} are identifiers wherever a key or value is
 * expected; {@code ()} and empty list entries are the empty value; a NUL character ends the token it is in
 * (Go's lexer uses 0 as its end marker); key errors carry the path {@code <nil>} and value errors the path
 * {@code values[i][key]}, as Go prints them.
 */
final class LabelSelectorParser {

    private enum Token {
        ERROR,
        END_OF_STRING,
        CLOSED_PAR,
        COMMA,
        DOES_NOT_EXIST,
        DOUBLE_EQUALS,
        EQUALS,
        GREATER_THAN,
        IDENTIFIER,
        IN,
        LESS_THAN,
        NOT_EQUALS,
        NOT_IN,
        OPEN_PAR
    }

    private record Item(Token token, String literal) {}

    /** Contexts in which {@code in} and {@code notin} are read as plain identifiers. */
    private enum Context {
        KEY_AND_OPERATOR,
        VALUES
    }

    private static final Map<String, Token> LITERALS = Map.ofEntries(
            Map.entry(")", Token.CLOSED_PAR),
            Map.entry(",", Token.COMMA),
            Map.entry("!", Token.DOES_NOT_EXIST),
            Map.entry("==", Token.DOUBLE_EQUALS),
            Map.entry("=", Token.EQUALS),
            Map.entry(">", Token.GREATER_THAN),
            Map.entry("in", Token.IN),
            Map.entry("<", Token.LESS_THAN),
            Map.entry("!=", Token.NOT_EQUALS),
            Map.entry("notin", Token.NOT_IN),
            Map.entry("(", Token.OPEN_PAR));

    /** {@code strings.Join(binaryOperators, ", ")}. */
    private static final String BINARY_OPERATORS = "in, notin, =, ==, !=, gt, lt";

    private final String input;
    private int pos;
    private final List<Item> items = new ArrayList<>();
    private int position;

    private LabelSelectorParser(String input) {
        this.input = input;
    }

    static List<Requirement> parse(String selector) {
        return new LabelSelectorParser(selector).parse();
    }

    // ------------------------------------------------------------------------------------------------
    // Lexer

    /** The next character, or 0 at the end; a NUL in the input also reads as 0 (and is consumed). */
    private char read() {
        if (pos < input.length()) {
            return input.charAt(pos++);
        }
        return 0;
    }

    private void unread() {
        pos--;
    }

    private static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }

    private static boolean isSpecialSymbol(char c) {
        return switch (c) {
            case '=', '!', '(', ')', ',', '>', '<' -> true;
            default -> false;
        };
    }

    private Item lex() {
        char c = read();
        while (isWhitespace(c)) {
            c = read();
        }
        if (c == 0) {
            return new Item(Token.END_OF_STRING, "");
        }
        unread();
        return isSpecialSymbol(c) ? scanSpecialSymbol() : scanIdOrKeyword();
    }

    private Item scanIdOrKeyword() {
        StringBuilder buffer = new StringBuilder();
        while (true) {
            char c = read();
            if (c == 0) {
                break;
            }
            if (isSpecialSymbol(c) || isWhitespace(c)) {
                unread();
                break;
            }
            buffer.append(c);
        }
        String s = buffer.toString();
        Token keyword = LITERALS.get(s);
        return new Item(keyword != null ? keyword : Token.IDENTIFIER, s);
    }

    /** The longest operator made of the special symbols at this point ({@code !=} rather than {@code !}). */
    private Item scanSpecialSymbol() {
        Item last = null;
        StringBuilder buffer = new StringBuilder();
        while (true) {
            char c = read();
            if (c == 0) {
                break;
            }
            if (!isSpecialSymbol(c)) {
                unread();
                break;
            }
            buffer.append(c);
            Token token = LITERALS.get(buffer.toString());
            if (token != null) {
                last = new Item(token, buffer.toString());
            } else if (last != null) {
                unread();
                break;
            }
        }
        if (last == null) {
            return new Item(Token.ERROR, "error expected: keyword found '" + buffer + "'");
        }
        return last;
    }

    private void scan() {
        while (true) {
            Item item = lex();
            items.add(item);
            if (item.token() == Token.END_OF_STRING) {
                return;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Parser

    private static Token inContext(Token token, Context context) {
        if (context == Context.VALUES && (token == Token.IN || token == Token.NOT_IN)) {
            return Token.IDENTIFIER;
        }
        return token;
    }

    private Item lookahead(Context context) {
        Item item = items.get(Math.min(position, items.size() - 1));
        return new Item(inContext(item.token(), context), item.literal());
    }

    private Item consume(Context context) {
        Item item = items.get(Math.min(position, items.size() - 1));
        position++;
        return new Item(inContext(item.token(), context), item.literal());
    }

    private static SelectorParseException error(String message) {
        return new SelectorParseException(message);
    }

    private List<Requirement> parse() {
        scan();
        List<Requirement> requirements = new ArrayList<>();
        while (true) {
            Item next = lookahead(Context.VALUES);
            switch (next.token()) {
                case IDENTIFIER, DOES_NOT_EXIST -> {
                    try {
                        requirements.add(parseRequirement());
                    } catch (SelectorParseException e) {
                        throw error("unable to parse requirement: " + e.getMessage());
                    }
                    Item after = consume(Context.VALUES);
                    switch (after.token()) {
                        case END_OF_STRING -> {
                            return requirements;
                        }
                        case COMMA -> {
                            Item following = lookahead(Context.VALUES);
                            if (following.token() != Token.IDENTIFIER && following.token() != Token.DOES_NOT_EXIST) {
                                throw error("found '" + following.literal() + "', expected: identifier after ','");
                            }
                        }
                        default -> throw error("found '" + after.literal() + "', expected: ',' or 'end of string'");
                    }
                }
                case END_OF_STRING -> {
                    return requirements;
                }
                default -> throw error("found '" + next.literal() + "', expected: !, identifier, or 'end of string'");
            }
        }
    }

    private Requirement parseRequirement() {
        Item first = consume(Context.VALUES);
        Operator operator = null;
        if (first.token() == Token.DOES_NOT_EXIST) {
            operator = Operator.DOES_NOT_EXIST;
            first = consume(Context.VALUES);
        }
        if (first.token() != Token.IDENTIFIER) {
            throw error("found '" + first.literal() + "', expected: identifier");
        }
        String key = first.literal();
        List<String> keyErrors = LabelValidation.labelKeyErrors(key);
        if (!keyErrors.isEmpty()) {
            throw error(GoFormat.invalid("<nil>", GoFormat.quote(key), String.join("; ", keyErrors)));
        }
        Token next = lookahead(Context.VALUES).token();
        if (next == Token.END_OF_STRING || next == Token.COMMA) {
            if (operator == null) {
                operator = Operator.EXISTS;
            }
        }
        if (operator == Operator.EXISTS || operator == Operator.DOES_NOT_EXIST) {
            return new Requirement(key, operator, List.of());
        }
        operator = parseOperator();
        List<String> values =
                switch (operator) {
                    case IN, NOT_IN -> parseValues();
                    default -> parseExactValue();
                };
        return new Requirement(key, operator, values);
    }

    private Operator parseOperator() {
        Item item = consume(Context.KEY_AND_OPERATOR);
        return switch (item.token()) {
            case IN -> Operator.IN;
            case EQUALS -> Operator.EQUALS;
            case DOUBLE_EQUALS -> Operator.DOUBLE_EQUALS;
            case GREATER_THAN -> Operator.GREATER_THAN;
            case LESS_THAN -> Operator.LESS_THAN;
            case NOT_IN -> Operator.NOT_IN;
            case NOT_EQUALS -> Operator.NOT_EQUALS;
            default -> throw error("found '" + item.literal() + "', expected: " + BINARY_OPERATORS);
        };
    }

    /** {@code (a,b,...)}: a sorted set, in which {@code ()}, a leading, trailing or doubled comma add {@code ""}. */
    private List<String> parseValues() {
        Item open = consume(Context.VALUES);
        if (open.token() != Token.OPEN_PAR) {
            throw error("found '" + open.literal() + "' expected: '('");
        }
        Item next = lookahead(Context.VALUES);
        switch (next.token()) {
            case IDENTIFIER, COMMA -> {
                TreeSet<String> values = parseIdentifiersList();
                if (consume(Context.VALUES).token() != Token.CLOSED_PAR) {
                    // Go reports the literal it looked at before the list; kept as is.
                    throw error("found '" + next.literal() + "', expected: ')'");
                }
                return List.copyOf(values);
            }
            case CLOSED_PAR -> {
                consume(Context.VALUES);
                return List.of("");
            }
            default -> throw error("found '" + next.literal() + "', expected: ',', ')' or identifier");
        }
    }

    private TreeSet<String> parseIdentifiersList() {
        TreeSet<String> values = new TreeSet<>(GoFormat::compare);
        while (true) {
            Item item = consume(Context.VALUES);
            switch (item.token()) {
                case IDENTIFIER -> {
                    values.add(item.literal());
                    Item next = lookahead(Context.VALUES);
                    switch (next.token()) {
                        case COMMA -> {}
                        case CLOSED_PAR -> {
                            return values;
                        }
                        default -> throw error("found '" + next.literal() + "', expected: ',' or ')'");
                    }
                }
                case COMMA -> {
                    if (values.isEmpty()) {
                        values.add(""); // "(,"
                    }
                    Token next = lookahead(Context.VALUES).token();
                    if (next == Token.CLOSED_PAR) {
                        values.add(""); // ",)"
                        return values;
                    }
                    if (next == Token.COMMA) {
                        consume(Context.VALUES);
                        values.add(""); // ",,"
                    }
                }
                default -> throw error("found '" + item.literal() + "', expected: ',', or identifier");
            }
        }
    }

    private List<String> parseExactValue() {
        Token next = lookahead(Context.VALUES).token();
        if (next == Token.END_OF_STRING || next == Token.COMMA) {
            return List.of("");
        }
        Item item = consume(Context.VALUES);
        if (item.token() == Token.IDENTIFIER) {
            return List.of(item.literal());
        }
        throw error("found '" + item.literal() + "', expected: identifier");
    }
}
