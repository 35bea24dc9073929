import { envBoolean, optionalText, unset } from './config-values';

/*
 * Temporal's environment configuration: the standard variables every Temporal SDK and the Temporal
 * CLI read (https://docs.temporal.io/develop/environment-configuration), part of the one schema
 * (config-schema.ts). The schema checks their spelling; platform/temporal-connection.ts reads them
 * with @temporalio/envconfig (profiles from a TOML file too) and checks what they name.
 */

const pem = (what: string, variable: string) =>
  optionalText.meta(
    unset(
      `${what} given as its PEM text instead of a file (for a secret store that hands out values); not with \`${variable}\`.`,
      '(none)',
    ),
  );

export const temporalSettings = {
  TEMPORAL_ADDRESS: optionalText.meta(
    unset(
      'Any Temporal cluster (`host:port`, e.g. `my-ns.a2b3c.tmprl.cloud:7233`) instead of the local dev server; with the variables below for TLS, mTLS or an API key ([temporal.md](temporal.md#connecting)).',
      '(the profile’s, else the local dev server)',
    ),
  ),
  TEMPORAL_NAMESPACE: optionalText.meta(
    unset('The Temporal namespace of the workflows (Temporal Cloud: `<namespace>.<account>`).', 'the profile’s, else `default`'),
  ),
  TEMPORAL_API_KEY: optionalText.meta(
    unset(
      'An API key (Temporal Cloud, or a cluster with a JWT authorizer): sent as `Authorization: Bearer`, and turns TLS on. Not together with a client certificate.',
      '(none)',
    ),
  ),
  TEMPORAL_TLS: envBoolean
    .optional()
    .meta(
      unset(
        '`true` connects over TLS (the system’s trusted CAs, or `TEMPORAL_TLS_SERVER_CA_CERT_PATH`); `false` forbids it. A client certificate, a CA or an API key turn it on by themselves.',
        '(on when any TLS setting or an API key is given)',
      ),
    ),
  TEMPORAL_TLS_CLIENT_CERT_PATH: optionalText.meta(
    unset(
      'The client certificate (PEM) for mTLS, with `TEMPORAL_TLS_CLIENT_KEY_PATH`; checked at start (readable, PEM, matching its key).',
      '(no mTLS)',
    ),
  ),
  TEMPORAL_TLS_CLIENT_KEY_PATH: optionalText.meta(unset('The private key (PEM) of the client certificate.', '(no mTLS)')),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: optionalText.meta(
    unset(
      'The CA (PEM) that signed the cluster’s server certificate, when it is not one the system trusts (a self-hosted cluster).',
      '(the system’s CAs)',
    ),
  ),
  TEMPORAL_TLS_SERVER_NAME: optionalText.meta(
    unset(
      'The name the server certificate must carry, when it is not the host of `TEMPORAL_ADDRESS` (also sent as SNI).',
      '(the address’s host)',
    ),
  ),
  TEMPORAL_TLS_CLIENT_CERT_DATA: pem('The client certificate', 'TEMPORAL_TLS_CLIENT_CERT_PATH'),
  TEMPORAL_TLS_CLIENT_KEY_DATA: pem('The client key', 'TEMPORAL_TLS_CLIENT_KEY_PATH'),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: pem('The server CA', 'TEMPORAL_TLS_SERVER_CA_CERT_PATH'),
  TEMPORAL_CONFIG_FILE: optionalText.meta(
    unset(
      'A Temporal config file (TOML, `[profile.<name>]` with `address`, `namespace`, `api_key`, `[profile.<name>.tls]`), as the Temporal CLI writes; the variables above override its values.',
      '(none; with `TEMPORAL_PROFILE` alone, `~/.config/temporalio/temporal.toml`)',
    ),
  ),
  TEMPORAL_PROFILE: optionalText.meta(
    unset('The profile of the config file to use; a profile that is not there stops start-up.', '`default`'),
  ),
};
