// asl-validator 4 ships no type declarations; this is the part of its API the tests use.
declare module 'asl-validator' {
  interface AslValidationResult {
    isValid: boolean;
    errors: { 'Error code': string; Message: string }[];
    errorsText(separator?: string): string;
  }
  interface AslValidationOptions {
    checkPaths: boolean;
    checkArn: boolean;
  }
  export default function aslValidator(
    definition: unknown,
    options?: AslValidationOptions,
  ): AslValidationResult;
}
