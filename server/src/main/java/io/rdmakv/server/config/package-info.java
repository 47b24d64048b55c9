/**
 * The command line of {@code kvserver}: option groups (mixins) that each set their part of an immutable
 * {@link io.rdmakv.server.config.ServerConfig}, and the layered defaults behind them. A value comes from, in
 * order of precedence: the command line, an {@code RDMAKV_*} environment variable, the config file
 * ({@code --config}, YAML or JSON, keys are the long option names), the built-in default.
 */
package io.rdmakv.server.config;
