/*
 * The certificates helper lives in infra/local/certificates.ts, since `npm run stack:cluster` and
 * the chaos run on the cluster make theirs too (infra/ and bench/ may not import the test suite).
 */
export { makeCertificates, type CertificateOptions, type Certificates } from '../../infra/local/certificates';
