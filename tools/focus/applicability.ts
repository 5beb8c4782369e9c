// Which of the model's ApplicabilityCriteria the `focus` table written from Cloudforet meets, with
// the reason for each. A rule whose criteria are not all met does not apply (and neither do the
// rules it is made of); see conformance.ts. The criteria describe the provider of the data: for the
// `focus` table that is Cloudforet's cost records of AWS, Azure and Google accounts, so "not
// supported" below often means "the clouds have it, Cloudforet's cost rows do not carry it". Those
// are known gaps of the export, not claims about the clouds; docs must say so.
//
// Each entry quotes the spec's condition (the model's criterion, and the columns whose presence it
// decides: "<Column> MUST be present in a FOCUS dataset when the provider supports ..."). A criterion
// declared unsupported exempts every rule under it (the runner prints how many); its reason says
// why Cloudforet's data cannot meet those rules, naming one it would break. Where the clouds do
// support the concept, `cloudsSupport` says so and the columns must still be present (NULL where
// Cloudforet has no value): the supplementary rule Static-PresentWhereCloudsSupport checks it.
//
// Every criterion of the model in use must be declared here (the runner refuses an undeclared one),
// so a new model (1.3) makes whoever swaps it decide each new criterion.

export interface Criterion {
  supported: boolean;
  /** The spec's condition, quoted (FOCUS 1.2 column text; the 1.3 drafts keep these sentences). */
  condition: string;
  /** Why: for an unsupported criterion, which rule Cloudforet's data would break, and why it must. */
  reason: string;
  /** AWS, Azure and Google Cloud support the concept: its columns are present, NULL where unknown. */
  cloudsSupport?: boolean;
}

export type Applicability = Record<string, Criterion>;

export const cloudforetApplicability: Applicability = {
  ACCOUNT_NAMING_SUPPORTED: {
    supported: true,
    condition: 'Provider supports assigning a display name for the billing account',
    reason: 'Cloudforet names the billing account of each cost row (BillingAccountName).',
  },
  AVAILABILITY_ZONE_SUPPORTED: {
    supported: true,
    condition:
      'AvailabilityZone is RECOMMENDED to be present in a FOCUS dataset when the provider supports ' +
      'deploying resources or services within an availability zone.',
    reason:
      'AWS, Azure and Google deploy into zones, so the criterion holds; Cloudforet cost rows carry no ' +
      'zone, so the RECOMMENDED column is absent and CostAndUsage-D-003-C reports a warning.',
  },
  CAPACITY_RESERVATION_SUPPORTED: {
    supported: false,
    cloudsSupport: true,
    condition:
      'CapacityReservationId (and CapacityReservationStatus) MUST be present in a FOCUS dataset when the ' +
      'provider supports capacity reservations.',
    reason:
      'Present, NULL. Cloudforet cost rows do not say which charges a capacity reservation covers or ' +
      'leaves unused, so "CapacityReservationId MUST NOT be null when a charge represents the unused ' +
      'portion of a capacity reservation" (CapacityReservationId-C-005-C) cannot be met. (Declared ' +
      "supported, the model's CapacityReservationStatus-C-003-C/-C-004-C, whose conditions are not " +
      'checks, fail every row even of NULL data.)',
  },
  COMMITMENT_DISCOUNT_SUPPORTED: {
    supported: false,
    cloudsSupport: true,
    condition:
      'CommitmentDiscountId (Name, Category, Type, Status, Quantity, Unit) MUST be present in a FOCUS ' +
      'dataset when the provider supports commitment discounts.',
    reason:
      'Present; NULL where the plugin names no commitment. "CommitmentDiscountId MUST NOT be null when a ' +
      'charge is related to a commitment discount" (CommitmentDiscountId-C-005-C): AWS rows of ' +
      'SavingsPlanCoveredUsage and DiscountedUsage are, and Cloudforet keeps no Savings Plan or ' +
      "reservation ARN for them. (Declared supported, the model's CommitmentDiscountStatus-C-003-C, " +
      'whose requirement reads "not null" for the text\'s "MUST be null", fails every row of NULL data.)',
  },
  MULTIPLE_PRICING_CATEGORIES_SUPPORTED: {
    supported: false,
    cloudsSupport: true,
    condition:
      'PricingCategory MUST be present in a FOCUS dataset when the provider supports more than one ' +
      'pricing category across all SKUs.',
    reason:
      'Present; NULL where the plugin names no pricing model. "PricingCategory MUST NOT be null when ' +
      'ChargeCategory is "Usage" or "Purchase" and ChargeClass is not "Correction"" (PricingCategory-C-004-C): ' +
      'AWS and Google Cloud cost rows carry no pricing model (on-demand, spot, committed).',
  },
  MULTIPLE_SUB_ACCOUNT_TYPES_SUPPORTED: {
    supported: false,
    condition:
      'SubAccountType MUST be present in a FOCUS dataset when the provider supports more than one ' +
      'possible SubAccountType value.',
    reason:
      'Each cloud has one kind of sub account (AWS account, Azure subscription, Google Cloud project), and ' +
      "SubAccountType is the provider's: no provider here has more than one. Not written.",
  },
  MULTIPLE_BILLING_ACCOUNT_TYPES_SUPPORTED: {
    supported: false,
    condition:
      'BillingAccountType MUST be present in a FOCUS dataset when the provider supports more than one ' +
      'possible BillingAccountType value.',
    reason:
      "Azure has several (EA enrollment, MCA billing profile), but Cloudforet's trusted account does not " +
      'say which: "BillingAccountType MUST NOT be null when BillingAccountId is not null" ' +
      '(BillingAccountType-C-005-C) could not be met. Not written.',
  },
  NEGOTIATED_PRICING_SUPPORTED: {
    supported: false,
    cloudsSupport: true,
    condition:
      'ContractedUnitPrice MUST be present in a FOCUS dataset when the provider supports negotiated pricing concepts.',
    reason:
      'Present, NULL. "ContractedUnitPrice MUST NOT be null when ChargeCategory is "Usage" or "Purchase" ' +
      'and ChargeClass is not "Correction"" (ContractedUnitPrice-C-006-C): Cloudforet cost rows carry no ' +
      'negotiated unit price.',
  },
  PUBLIC_PRICE_LIST_SUPPORTED: {
    supported: false,
    cloudsSupport: true,
    condition:
      'ListUnitPrice MUST be present in a FOCUS dataset when the provider publishes unit prices exclusive ' +
      'of discounts; SkuId, SkuPriceId, SkuMeter and SkuPriceDetails MUST be present when the provider ' +
      'supports unit pricing concepts and publishes price lists, publicly or as part of contracting.',
    reason:
      'Present; NULL where the plugin gives no price or SKU. "ListUnitPrice MUST NOT be null when ' +
      'ChargeCategory is "Usage" or "Purchase" and ChargeClass is not "Correction"" (ListUnitPrice-C-005-C, ' +
      'and SkuId-C-005-C, SkuPriceId-C-005-C alike): AWS and Google Cloud cost rows carry no unit price ' +
      "and no SKU (Azure's additional_info has a pay-as-you-go price and meter).",
  },
  USAGE_MEASUREMENT_SUPPORTED: {
    supported: true,
    condition:
      'ConsumedQuantity MUST be present in a FOCUS dataset when the provider supports the measurement of usage.',
    reason:
      'Cloudforet cost rows carry usage quantity and unit (ConsumedQuantity, ConsumedUnit on usage rows).',
  },
  UNIT_PRICING_SUPPORTED: {
    supported: false,
    cloudsSupport: true,
    condition:
      'SkuId, SkuPriceId, SkuMeter and SkuPriceDetails MUST be present in a FOCUS dataset when the provider ' +
      'supports unit pricing concepts and publishes price lists, publicly or as part of contracting.',
    reason: 'Present; NULL where the plugin gives no SKU. As PUBLIC_PRICE_LIST_SUPPORTED (SkuId-C-005-C).',
  },
  SUB_ACCOUNT_SUPPORTED: {
    supported: true,
    condition:
      'SubAccountId MUST be present in a FOCUS dataset when the provider supports a sub account construct.',
    reason: 'Linked account, subscription or project of each row (SubAccountId, SubAccountName).',
  },
  BILLING_BASED_ON_PROVISIONED_RESOURCES_SUPPORTED: {
    supported: true,
    condition:
      'ResourceId MUST be present in a FOCUS dataset when the provider supports billing based on provisioned resources.',
    reason:
      'The clouds bill provisioned resources and Cloudforet cost rows carry the resource (ResourceId, ResourceName).',
  },
  RESOURCE_TYPE_ASSIGNMENT_SUPPORTED: {
    supported: false,
    cloudsSupport: true,
    condition:
      'ResourceType MUST be present in a FOCUS dataset when the provider supports billing based on ' +
      'provisioned resources and supports assigning types to resources.',
    reason:
      "Present: inventory's type where inventory knows the resource, NULL where it does not. " +
      '"ResourceType MUST NOT be null when ResourceId is not null" (ResourceType-C-005-C): cost rows ' +
      'name resources inventory never collected (deleted ones, services no collector covers), so the ' +
      "rule cannot hold for every row. (The model names that rule's condition column as " +
      'CheckCondition, not ColumnName.)',
  },
  PRICING_BILLING_CURRENCY_DIFFERENCES_SUPPORTED: {
    supported: false,
    condition:
      'PricingCurrency MUST be present in a FOCUS dataset when the provider supports pricing and billing ' +
      'in different currencies.',
    reason:
      'Azure prices in USD and bills in other currencies, but Cloudforet keeps one currency per data ' +
      'source, the billing one: "PricingCurrency MUST NOT be null" (PricingCurrency-C-004-M) could not be ' +
      'met truthfully. Not written.',
  },
  VIRTUAL_CURRENCY_SUPPORTED: {
    supported: false,
    condition:
      'PricingCurrencyContractedUnitPrice (and the other PricingCurrency* columns) MUST be present in a ' +
      'FOCUS dataset when the provider supports prices in virtual currency and publishes unit prices ' +
      'exclusive of discounts.',
    reason: 'Costs are in national currencies (USD, KRW, ...) only: the clouds bill no virtual currency.',
  },
  REGION_SUPPORTED: {
    supported: true,
    condition:
      'RegionId MUST be present in a FOCUS dataset when the provider supports deploying resources or ' +
      'services within a region.',
    reason: 'Cloudforet cost rows carry the region (RegionId, RegionName).',
  },
  TAGGING_SUPPORTED: {
    supported: true,
    condition:
      'Tags MUST be present in a FOCUS dataset when the provider supports setting user or provider-defined tags.',
    reason: 'Cloudforet cost rows carry the resource tags (Tags).',
  },
};
